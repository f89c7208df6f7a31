-- One vocabulary for verdict kinds: the club's own words (rules.verdicts.VerdictKind), as typed and shown.
-- The stored drafts and verdicts change their `kind` word only; nothing else in them changes.
UPDATE trials SET draft = json_set(draft, '$.kind', CASE json_extract(draft, '$.kind')
        WHEN 'bula_change' THEN 'bule' WHEN 'fall_transfer' THEN 'bula' WHEN 'penalty' THEN 'kazna'
        WHEN 'settlement' THEN 'svodjenje' WHEN 'nobody' THEN 'niko' WHEN 'no_verdict' THEN 'bez'
        ELSE json_extract(draft, '$.kind') END)
    WHERE draft IS NOT NULL;
UPDATE trials SET verdict = json_set(verdict, '$.kind', CASE json_extract(verdict, '$.kind')
        WHEN 'bula_change' THEN 'bule' WHEN 'fall_transfer' THEN 'bula' WHEN 'penalty' THEN 'kazna'
        WHEN 'settlement' THEN 'svodjenje' WHEN 'nobody' THEN 'niko' WHEN 'no_verdict' THEN 'bez'
        ELSE json_extract(verdict, '$.kind') END)
    WHERE verdict IS NOT NULL;
