ALTER TABLE `run_events` ADD `journal` text;--> statement-breakpoint
ALTER TABLE `runs` ADD `attempt` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `runs` ADD `pinned` text;--> statement-breakpoint
ALTER TABLE `tools` ADD `annotations` text;