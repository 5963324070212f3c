DROP INDEX `workflow_runs_status_idx`;--> statement-breakpoint
DROP INDEX `workflow_steps_run_idx`;