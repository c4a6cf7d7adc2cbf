CREATE INDEX `runs_ws_status` ON `runs` (`workspace_id`,`status`);--> statement-breakpoint
CREATE INDEX `runs_ws_started` ON `runs` (`workspace_id`,`started_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_endpoint_lease` ON `webhook_deliveries` (`endpoint_id`,`status`,`locked_until`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_ws_lease` ON `webhook_deliveries` (`workspace_id`,`status`,`locked_until`);