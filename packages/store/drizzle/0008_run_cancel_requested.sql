ALTER TABLE `runs` ADD `cancel_requested_at` integer;--> statement-breakpoint
CREATE INDEX `runs_cancel_requested_idx` ON `runs` (`worker_id`) WHERE "runs"."cancel_requested_at" IS NOT NULL;