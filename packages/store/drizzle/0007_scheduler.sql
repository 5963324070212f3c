CREATE TABLE `leases` (
	`name` text PRIMARY KEY NOT NULL,
	`owner` text NOT NULL,
	`expires_at` integer NOT NULL,
	`acquired_at` integer NOT NULL
);
--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_schedules` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text DEFAULT 'agent' NOT NULL,
	`agent_id` integer,
	`workflow_id` integer,
	`environment_id` integer,
	`target` text DEFAULT '' NOT NULL,
	`cron` text NOT NULL,
	`timezone` text,
	`enabled` integer DEFAULT true NOT NULL,
	`task` text,
	`variables` text DEFAULT '{}' NOT NULL,
	`input` text,
	`origin` text DEFAULT 'file' NOT NULL,
	`catch_up` text DEFAULT 'once' NOT NULL,
	`overlap` text DEFAULT 'skip' NOT NULL,
	`last_run_at` integer,
	`next_run_at` integer,
	`last_outcome` text,
	`last_error` text,
	`last_run_id` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`workflow_id`) REFERENCES `workflows`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`environment_id`) REFERENCES `environments`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `__new_schedules`("id", "kind", "agent_id", "environment_id", "target", "cron", "enabled", "variables", "last_run_at", "next_run_at", "created_at", "updated_at") SELECT s."id", 'agent', s."agent_id", a."environment_id", COALESCE(a."name", ''), s."cron", s."enabled", s."variables", s."last_run_at", s."next_run_at", s."created_at", s."updated_at" FROM `schedules` s LEFT JOIN `agents` a ON a."id" = s."agent_id";--> statement-breakpoint
DROP TABLE `schedules`;--> statement-breakpoint
ALTER TABLE `__new_schedules` RENAME TO `schedules`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `schedules_agent_id_unique` ON `schedules` (`agent_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `schedules_workflow_id_unique` ON `schedules` (`workflow_id`);--> statement-breakpoint
CREATE INDEX `schedules_due_idx` ON `schedules` (`enabled`,`next_run_at`);