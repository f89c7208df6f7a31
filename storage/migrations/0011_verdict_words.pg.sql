-- PostgreSQL's 0011_verdict_words.sql (the rule for writing one: storage/migrations/README.md).
-- One vocabulary for verdict kinds: the club's own words (rules.verdicts.VerdictKind), as typed and shown.
-- The stored drafts and verdicts change their `kind` word only; nothing else in them changes.
UPDATE trials SET draft = jsonb_set(draft::jsonb, '{kind}', to_jsonb(CASE draft::jsonb ->> 'kind'
        WHEN 'bula_change' THEN 'bule' WHEN 'fall_transfer' THEN 'bula' WHEN 'penalty' THEN 'kazna'
        WHEN 'settlement' THEN 'svodjenje' WHEN 'nobody' THEN 'niko' WHEN 'no_verdict' THEN 'bez'
        ELSE draft::jsonb ->> 'kind' END))::text
    WHERE draft IS NOT NULL;
UPDATE trials SET verdict = jsonb_set(verdict::jsonb, '{kind}', to_jsonb(CASE verdict::jsonb ->> 'kind'
        WHEN 'bula_change' THEN 'bule' WHEN 'fall_transfer' THEN 'bula' WHEN 'penalty' THEN 'kazna'
        WHEN 'settlement' THEN 'svodjenje' WHEN 'nobody' THEN 'niko' WHEN 'no_verdict' THEN 'bez'
        ELSE verdict::jsonb ->> 'kind' END))::text
    WHERE verdict IS NOT NULL;
