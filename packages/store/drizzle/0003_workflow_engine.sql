PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_workflow_runs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`workflow_id` integer,
	`workflow_key` text NOT NULL,
	`workflow_name` text NOT NULL,
	`environment_id` integer,
	`definition` text,
	`status` text DEFAULT 'pending' NOT NULL,
	`source` text,
	`input` text,
	`output` text,
	`error` text,
	`current_step` text,
	`worker_id` text,
	`lease_expires_at` integer,
	`wake_at` integer,
	`timeout_at` integer,
	`idempotency_key` text,
	`created_at` integer NOT NULL,
	`started_at` integer,
	`completed_at` integer,
	FOREIGN KEY (`workflow_id`) REFERENCES `workflows`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`environment_id`) REFERENCES `environments`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
INSERT INTO `__new_workflow_runs`("id", "workflow_id", "workflow_key", "workflow_name", "status", "input", "output", "error", "current_step", "created_at", "started_at", "completed_at") SELECT "id", "workflow_id", "workflow_key", "workflow_name", CASE "status" WHEN 'queued' THEN 'pending' WHEN 'error' THEN 'failed' ELSE "status" END, "input", "output", "error", "current_step", "created_at", "started_at", "completed_at" FROM `workflow_runs`;--> statement-breakpoint
DROP TABLE `workflow_runs`;--> statement-breakpoint
ALTER TABLE `__new_workflow_runs` RENAME TO `workflow_runs`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `workflow_runs_idempotency_key_unique` ON `workflow_runs` (`idempotency_key`);--> statement-breakpoint
CREATE INDEX `workflow_runs_workflow_idx` ON `workflow_runs` (`workflow_id`);--> statement-breakpoint
CREATE INDEX `workflow_runs_status_idx` ON `workflow_runs` (`status`);--> statement-breakpoint
CREATE INDEX `workflow_runs_wake_idx` ON `workflow_runs` (`status`,`wake_at`);--> statement-breakpoint
ALTER TABLE `approvals` ADD `step_path` text;--> statement-breakpoint
ALTER TABLE `approvals` ADD `notified_at` integer;--> statement-breakpoint
ALTER TABLE `workflow_steps` ADD `path` text DEFAULT '' NOT NULL;--> statement-breakpoint
UPDATE `workflow_steps` SET `path` = `step_name` || '#' || `id`, `status` = CASE `status` WHEN 'error' THEN 'failed' ELSE `status` END;--> statement-breakpoint
ALTER TABLE `workflow_steps` ADD `attempt` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `workflow_steps` ADD `run_id` integer REFERENCES runs(id) ON DELETE SET NULL;--> statement-breakpoint
ALTER TABLE `workflow_steps` ADD `approval_id` text;--> statement-breakpoint
ALTER TABLE `workflow_steps` ADD `wake_at` integer;--> statement-breakpoint
CREATE UNIQUE INDEX `workflow_steps_attempt_unique` ON `workflow_steps` (`workflow_run_id`,`path`,`attempt`);