-- A member's own language (issue 18, `/jezik`): replies, private messages and buttons addressed to him are written
-- in it; without a row he reads the club's language. The club's chat and the table always keep the club's.
CREATE TABLE member_languages (
    member      BIGINT  PRIMARY KEY REFERENCES members(id),
    language    TEXT    NOT NULL CHECK (language IN ('sr', 'sr-Cyrl', 'en', 'ru')),
    at          TEXT    NOT NULL
);
