CREATE TABLE `spans` (
	`trace_id` text NOT NULL,
	`span_id` text NOT NULL,
	`parent_span_id` text,
	`name` text NOT NULL,
	`kind` integer NOT NULL,
	`service_name` text NOT NULL,
	`scope_name` text,
	`start_us` integer NOT NULL,
	`duration_us` integer NOT NULL,
	`status_code` integer NOT NULL,
	`status_message` text,
	`attributes` text NOT NULL,
	`events` text NOT NULL,
	`resource` text NOT NULL,
	`run_id` integer,
	`size_bytes` integer NOT NULL,
	`received_at` integer NOT NULL,
	PRIMARY KEY(`trace_id`, `span_id`)
);
--> statement-breakpoint
CREATE INDEX `spans_start_idx` ON `spans` (`start_us`);--> statement-breakpoint
CREATE INDEX `spans_run_idx` ON `spans` (`run_id`);--> statement-breakpoint
CREATE INDEX `spans_service_start_idx` ON `spans` (`service_name`,`start_us`);