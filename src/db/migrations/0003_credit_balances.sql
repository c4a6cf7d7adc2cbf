CREATE TABLE `credit_balances` (
	`workspace_id` text NOT NULL,
	`kind` text NOT NULL,
	`balance` real NOT NULL,
	PRIMARY KEY(`workspace_id`, `kind`),
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
-- Backfill: an existing database's balances are its ledger's sums.
INSERT INTO `credit_balances` (`workspace_id`, `kind`, `balance`)
SELECT `workspace_id`, `kind`, sum(`delta`) FROM `credit_ledger` GROUP BY `workspace_id`, `kind`;
