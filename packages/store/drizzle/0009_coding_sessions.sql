CREATE TABLE `coding_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`backend` text NOT NULL,
	`status` text DEFAULT 'open' NOT NULL,
	`run_id` integer,
	`agent_id` integer,
	`agent_name` text DEFAULT '' NOT NULL,
	`title` text,
	`repo_url` text,
	`branch` text,
	`workspace_name` text NOT NULL,
	`workspace_path` text,
	`backend_session_id` text,
	`message_count` integer DEFAULT 0 NOT NULL,
	`last_commit` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`closed_at` integer,
	FOREIGN KEY (`run_id`) REFERENCES `runs`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `coding_sessions_status_idx` ON `coding_sessions` (`status`);--> statement-breakpoint
CREATE INDEX `coding_sessions_run_idx` ON `coding_sessions` (`run_id`);