"""The words the pictures print, in the club's languages (Serbian Latin by default, English)."""

from __future__ import annotations

WORDS: dict[str, dict[str, str]] = {
    "sr": {
        "paper": "Papir partije {game}", "size": "{size} bula · refe {rounds}/{limit}", "hand": "ruka",
        "game": "igra", "left": "supe", "bule": "bule", "right": "supe", "refe": "refe", "all_pass": "svi dalje",
        "trial": "suđenje {trial}", "players": "igrači", "total": "ukupno", "result": "rezultat",
        "ended": "kraj posle ruke {hand}", "settled": "ručno svedena", "running": "u toku: {left} bula",
        "write_off": "otpis", "hat": "kapa", "not_applied": "ne važi", "unscored": "ne računa se",
        "promena_bula": "promena bula", "odlazak_u_bulu": "odlazak u bulu", "ispravka": "ispravka",
        "otpis": "ručno svođenje",
        "hands_title": "Partija {game} · ruka {n}", "dealer": "deli {name}", "talon": "talon",
        "discards": "škart", "bids": "licitacija", "contract": "{name}: {contract}", "in_progress": "u toku",
        "tricks": "štihovi", "led": "igra prvi", "won": "nosi", "follows": "dođem", "passes": "ne dođem",
        "calls": "zovem", "kontra": "kontra", "declarer": "odigravač", "no_play": "ruka se ne igra",
        "arbitar": "Arbitar · partija {game} · ruka {n}", "transfer": "Pad se prebacuje na igrača {name}",
        "stays": "Pad ostaje igraču {name}", "step": "korak {step}", "decisive": "odlučujući štih {trick}",
        "played_card": "odigrana karta", "better_card": "bolja karta", "by": "igrač {name}",
        "ev_layouts": "rasporedi koje igrač nije video", "ev_consistent": "saglasni sa licitacijom",
        "ev_better": "bolja karta bolja", "ev_worse": "odigrana karta bolja", "ev_compared": "upoređeno",
        "ev_bar": "prag (10%)", "ev_with_card": "štihovi odigravača posle odigrane karte",
        "ev_with_better": "štihovi odigravača posle bolje karte", "ev_rezons": "rezoni (pao / drugi)",
        "ev_aces": "asovi (pao / drugi)", "ev_defence": "štihovi odbrane / potrebno", "reason": "razlog",
        "chart": "Pozivi i istekli pozivi", "by_hour": "po satu", "by_week": "po nedelji", "chart_calls": "pozivi",
        "expired": "istekli",
    },
    "en": {
        "paper": "Paper of game {game}", "size": "{size} bule · refe {rounds}/{limit}", "hand": "hand",
        "game": "contract", "left": "supe", "bule": "bule", "right": "supe", "refe": "refe",
        "all_pass": "all pass", "trial": "trial {trial}", "players": "players", "total": "total",
        "result": "result", "ended": "ended after hand {hand}", "settled": "settled by hand",
        "running": "in progress: {left} bule", "write_off": "written off", "hat": "hat",
        "not_applied": "not applied", "unscored": "not counted", "promena_bula": "bule change",
        "odlazak_u_bulu": "fall moved", "ispravka": "correction", "otpis": "settlement",
        "hands_title": "Game {game} · hand {n}", "dealer": "{name} deals", "talon": "talon", "discards": "discards",
        "bids": "auction", "contract": "{name}: {contract}", "in_progress": "in progress", "tricks": "tricks",
        "led": "led", "won": "won", "follows": "follows", "passes": "passes", "calls": "calls in",
        "kontra": "kontra", "declarer": "declarer", "no_play": "the hand is not played",
        "arbitar": "Arbitar · game {game} · hand {n}", "transfer": "The fall moves to {name}",
        "stays": "The fall stays with {name}", "step": "step {step}", "decisive": "decisive trick {trick}",
        "played_card": "card played", "better_card": "better card", "by": "player {name}",
        "ev_layouts": "layouts the player could not see", "ev_consistent": "consistent with the bidding",
        "ev_better": "better card better", "ev_worse": "card played better", "ev_compared": "compared",
        "ev_bar": "bar (10%)", "ev_with_card": "declarer's tricks after the card played",
        "ev_with_better": "declarer's tricks after the better card", "ev_rezons": "rezons (fallen / other)",
        "ev_aces": "aces (fallen / other)", "ev_defence": "defence tricks / needed", "reason": "reason",
        "chart": "Calls and expired calls", "by_hour": "by hour of day", "by_week": "by week", "chart_calls": "calls",
        "expired": "expired",
    },
}


def words(lang: str) -> dict[str, str]:
    return WORDS.get(lang, WORDS["sr"])
