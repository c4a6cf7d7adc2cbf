CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`mode` text NOT NULL,
	`key_prefix` text NOT NULL,
	`last4` text NOT NULL,
	`token_hash` text NOT NULL,
	`scopes` text NOT NULL,
	`status` text NOT NULL,
	`rate_limit_rpm` integer,
	`expires_at` integer,
	`last_used_at` integer,
	`created_at` integer NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_token_hash` ON `api_keys` (`token_hash`);--> statement-breakpoint
CREATE INDEX `api_keys_ws_created` ON `api_keys` (`workspace_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `chunks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`workspace_id` text NOT NULL,
	`document_id` text NOT NULL,
	`ord` integer NOT NULL,
	`text` text NOT NULL,
	`location` text NOT NULL,
	`start_offset` integer NOT NULL,
	FOREIGN KEY (`document_id`) REFERENCES `documents`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `chunks_document` ON `chunks` (`document_id`,`ord`);--> statement-breakpoint
CREATE TABLE `credit_ledger` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`workspace_id` text NOT NULL,
	`kind` text NOT NULL,
	`delta` real NOT NULL,
	`reason` text NOT NULL,
	`run_id` text,
	`note` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `credit_ledger_ws` ON `credit_ledger` (`workspace_id`,`kind`);--> statement-breakpoint
CREATE INDEX `credit_ledger_run` ON `credit_ledger` (`run_id`);--> statement-breakpoint
CREATE TABLE `documents` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`filename` text NOT NULL,
	`declared_mime_type` text,
	`declared_size` integer,
	`object_key` text NOT NULL,
	`status` text NOT NULL,
	`mime_type` text,
	`size_bytes` integer,
	`page_count` integer,
	`text_chars` integer,
	`extracted` text,
	`error` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `documents_ws_created` ON `documents` (`workspace_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `events` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`type` text NOT NULL,
	`subject_id` text NOT NULL,
	`extra_endpoint_id` text,
	`data` text NOT NULL,
	`dispatched_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `events_undispatched` ON `events` (`dispatched_at`,`created_at`);--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`scope` text PRIMARY KEY NOT NULL,
	`request_hash` text NOT NULL,
	`status` text NOT NULL,
	`response_status` integer,
	`response_body` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `idempotency_keys_created` ON `idempotency_keys` (`created_at`);--> statement-breakpoint
CREATE TABLE `jobs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text NOT NULL,
	`subject_id` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`locked_until` integer,
	`last_error` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `jobs_ready` ON `jobs` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `jobs_subject` ON `jobs` (`kind`,`subject_id`);--> statement-breakpoint
CREATE TABLE `reference_documents` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`document_id` text NOT NULL,
	`name` text NOT NULL,
	`status` text NOT NULL,
	`failure_reason` text,
	`deleted_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`document_id`) REFERENCES `documents`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `reference_documents_ws_created` ON `reference_documents` (`workspace_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `runs` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`workflow_id` text NOT NULL,
	`api_key_id` text,
	`key_mode` text NOT NULL,
	`status` text NOT NULL,
	`mode` text NOT NULL,
	`quoted_credits` real NOT NULL,
	`charged_credits` real,
	`input_documents` text NOT NULL,
	`metadata` text NOT NULL,
	`output_format` text,
	`output` text,
	`output_object_key` text,
	`output_mime_type` text,
	`usage` text,
	`error` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`locked_until` integer,
	`created_at` integer NOT NULL,
	`started_at` integer,
	`finished_at` integer,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `runs_ws_created` ON `runs` (`workspace_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `runs_status` ON `runs` (`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `runs_workflow` ON `runs` (`workflow_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `sessions` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`expires_at` integer NOT NULL,
	`revoked_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `sessions_user` ON `sessions` (`user_id`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`email` text NOT NULL,
	`password_hash` text,
	`role` text NOT NULL,
	`oidc_sub` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_email` ON `users` (`email`);--> statement-breakpoint
CREATE UNIQUE INDEX `users_oidc_sub` ON `users` (`oidc_sub`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`endpoint_id` text NOT NULL,
	`event_id` text NOT NULL,
	`event_type` text NOT NULL,
	`payload` text NOT NULL,
	`status` text NOT NULL,
	`attempts` text NOT NULL,
	`first_attempt_at` integer,
	`next_attempt_at` integer,
	`locked_until` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_deliveries_event_endpoint` ON `webhook_deliveries` (`event_id`,`endpoint_id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due` ON `webhook_deliveries` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_endpoint` ON `webhook_deliveries` (`endpoint_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `webhook_endpoints` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`url` text NOT NULL,
	`events` text NOT NULL,
	`secret` text NOT NULL,
	`status` text NOT NULL,
	`deleted_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `webhook_endpoints_ws_created` ON `webhook_endpoints` (`workspace_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `workflows` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`product_code` text NOT NULL,
	`name` text NOT NULL,
	`status` text NOT NULL,
	`prompt_template_id` text,
	`user_prompt` text,
	`reference_document_ids` text NOT NULL,
	`output_format` text NOT NULL,
	`output_schema` text,
	`output_schema_sample_id` text,
	`default_mode` text NOT NULL,
	`default_model_policy` text NOT NULL,
	`webhook_endpoint_id` text,
	`deleted_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `workflows_ws_created` ON `workflows` (`workspace_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `workspaces` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`created_at` integer NOT NULL
);
