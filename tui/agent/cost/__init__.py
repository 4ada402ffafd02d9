"""What requests cost: the price table, each request's money by token kind and by part, the cache breaks, the ledger's reports."""
