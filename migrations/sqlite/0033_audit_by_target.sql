-- An admin's sign-in lists the changes to its own account (its password, its MFA)
-- made since its previous sign-in (issue 53): the audit entries of one target, by time.
-- Phase: expand (an index).
CREATE INDEX audit_log_target ON audit_log (target_type, target_id, created_at);
