ALTER TABLE `runs` ADD `origin_workflow_run_id` integer;--> statement-breakpoint
ALTER TABLE `runs` ADD `origin_workflow_step` text;--> statement-breakpoint
ALTER TABLE `runs` ADD `origin_schedule_id` integer;--> statement-breakpoint
ALTER TABLE `runs` ADD `origin_platform_run_id` text;--> statement-breakpoint
CREATE INDEX `runs_origin_workflow_run_idx` ON `runs` (`origin_workflow_run_id`) WHERE "runs"."origin_workflow_run_id" IS NOT NULL;--> statement-breakpoint
UPDATE `runs` SET `origin_workflow_run_id` = CAST(substr(`idempotency_key`, 13, instr(substr(`idempotency_key`, 13), '-') - 1) AS INTEGER) WHERE `source` = 'workflow' AND `idempotency_key` LIKE 'workflow:wf-%';--> statement-breakpoint
UPDATE `runs` SET `origin_schedule_id` = CAST(substr(`idempotency_key`, 22, instr(substr(`idempotency_key`, 22), '-') - 1) AS INTEGER) WHERE `source` = 'cron_scheduler' AND `idempotency_key` LIKE 'cron_scheduler:sched-%';--> statement-breakpoint
UPDATE `runs` SET `origin_platform_run_id` = substr(`idempotency_key`, 12) WHERE `source` = 'management' AND `idempotency_key` LIKE 'management:%';
