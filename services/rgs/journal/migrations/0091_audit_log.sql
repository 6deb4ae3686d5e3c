-- The audit trail (issue 23; N.J.A.C. 13:69O-3.1(b), AGCO 4.01-4.02): who changed what, when
-- and why. Append only and hash-chained: each row's `hash` is the SHA-256 of the previous
-- row's hash and this row's canonical fields (rgs.service.audit), so an altered or removed row
-- breaks the chain where `rgs audit verify` finds it. `seq` is given under an advisory lock
-- by the writer (no sequence: a gap is a removed row, never a rolled-back insert).
CREATE TABLE audit_log (
    seq         bigint PRIMARY KEY,
    at          timestamptz NOT NULL,
    actor       text NOT NULL,
    operator_id text NOT NULL DEFAULT '',
    action      text NOT NULL,
    subject     text NOT NULL,
    reason      text NOT NULL DEFAULT '',
    details     text NOT NULL DEFAULT '{}',
    prev_hash   text NOT NULL,
    hash        text NOT NULL
);
-- An operator lists its own rows, newest first.
CREATE INDEX audit_log_operator ON audit_log (operator_id, seq DESC);
-- The application role may only add rows: UPDATE and DELETE are refused by the database
-- itself (the owner can still lift this, which the chain then shows).
CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit_log is append only';
END $$;
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
