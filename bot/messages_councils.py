"""The texts of the councilors' votes and of appeals (issue 19), in Serbian and English; `bot.messages` adds them to
its catalogue (a key may be in only one of the two)."""

from __future__ import annotations

COUNCIL_MESSAGES: dict[str, tuple[str, str]] = {
    # Votes -----------------------------------------------------------------------------------------------------
    "vote.owner_grave": (
        "Vlasnik razrešava sam zbog težeg kršenja pravila Kluba: {reason}",
        "The owner dismisses alone for a grave violation of the club's rules: {reason}",
    ),
    "vote.not_self_proposal": (
        "Ne možete predložiti sebe; ostavku podnosite sa /ostavka.",
        "You cannot make a proposal about yourself; resign with /ostavka.",
    ),
    "vote.too_few": (
        "Većnici odlučuju dogovorom, a glasati može samo {count} većnik(a): odluku donosi Vlasnik.",
        "The councilors decide by agreement, and only {count} councilor(s) may vote: the owner decides.",
    ),
    "vote.already_open": ("O članu {nick} ({role}) se već glasa.", "A vote on {nick} ({role}) is already open."),
    "vote.opened": (
        "Predlog #{vote} ({action}: {nick}, {role}) ide na glasanje svih većnika do {until}; usvaja se "
        "sa {needed} glasova za od {electorate}. Vaš glas je za.",
        "Proposal #{vote} ({action}: {nick}, {role}) goes to a vote of all councilors until {until}; it is "
        "carried by {needed} ayes of {electorate}. Your ballot is an aye.",
    ),
    "button.vote_yes": ("Da", "Yes"),
    "button.vote_no": ("Ne", "No"),
    "vote.notice": (
        "Glasanje #{vote}: {proposer} predlaže — {action}: {nick} ({role}). Razlog: {reason}. Glasa se do "
        "{until} (/glasaj {vote} da|ne); glas se može promeniti dok glasanje traje.",
        "Vote #{vote}: {proposer} proposes — {action}: {nick} ({role}). Reason: {reason}. Voting until "
        "{until} (/glasaj {vote} da|ne); a ballot may be changed while the vote is open.",
    ),
    "vote.unknown": ("Nema glasanja #{vote}.", "There is no vote #{vote}."),
    "vote.not_councilor": ("Glasaju samo većnici.", "Only councilors vote."),
    "vote.not_on_himself": ("O sebi ne glasate.", "You do not vote on yourself."),
    "vote.closed": ("Glasanje #{vote} je završeno: {state}.", "Vote #{vote} is over: {state}."),
    "vote.state_open": ("u toku", "open"),
    "vote.state_carried": ("usvojeno", "carried"),
    "vote.state_failed": ("nije usvojeno", "not carried"),
    "vote.cast": (
        "Glasanje #{vote}: vaš glas je {ballot}. Za {yes}, protiv {no} od {electorate}; potrebno {needed}.",
        "Vote #{vote}: your ballot is {ballot}. Ayes {yes}, noes {no} of {electorate}; {needed} needed.",
    ),
    "vote.yes": ("za", "aye"),
    "vote.no": ("protiv", "no"),
    "vote.closed_carried": (
        "Glasanje #{vote} je usvojeno ({action}: {nick}, {role}): za {yes}, protiv {no} od "
        "{electorate} (potrebno {needed}).",
        "Vote #{vote} is carried ({action}: {nick}, {role}): ayes {yes}, noes {no} of {electorate} ({needed} needed).",
    ),
    "vote.closed_failed": (
        "Glasanje #{vote} nije usvojeno ({action}: {nick}, {role}): za {yes}, protiv {no} od "
        "{electorate} (potrebno {needed}).",
        "Vote #{vote} is not carried ({action}: {nick}, {role}): ayes {yes}, noes {no} of "
        "{electorate} ({needed} needed).",
    ),
    "vote.action_appoint": ("prijem", "admission"),
    "vote.action_dismiss": ("razrešenje", "dismissal"),
    "vote.act_reason": (
        "odluka većnika, glasanje #{vote}: {reason}",
        "the councilors' decision, vote #{vote}: {reason}",
    ),
    "act.vote_opened": (
        "{at} — {who} predlaže glasanje #{vote} ({action}: {whom}, {role}) do {until}. Razlog: {reason}",
        "{at} — {who} proposes vote #{vote} ({action}: {whom}, {role}) until {until}. Reason: {reason}",
    ),
    "act.vote_cast": (
        "{at} — {who} glasa {ballot} u glasanju #{vote} o {whom}",
        "{at} — {who} votes {ballot} in vote #{vote} on {whom}",
    ),
    "act.vote_closed": (
        "{at} — glasanje #{vote} ({action}: {whom}, {role}): {state}; za {yes}, protiv {no} od {electorate}",
        "{at} — vote #{vote} ({action}: {whom}, {role}): {state}; ayes {yes}, noes {no} of {electorate}",
    ),
    # Appeals ---------------------------------------------------------------------------------------------------
    "appeal.restricted": (
        "Ograničeno vam je pravo žalbe do {until}.",
        "Your right to appeal is restricted until {until}.",
    ),
    "appeal.unknown_trial": ("Nema suđenja #{trial}.", "There is no trial #{trial}."),
    "appeal.not_recorded": (
        "Suđenje #{trial} nema zabeleženu presudu; žali se samo na zabeleženo suđenje.",
        "Trial #{trial} has no recorded verdict; only a recorded trial can be appealed.",
    ),
    "appeal.of_a_hearing": (
        "Suđenje #{trial} je odluka većnika o žalbi; na nju nema žalbe.",
        "Trial #{trial} is a councilor's decision on an appeal; it cannot be appealed.",
    ),
    "appeal.not_a_party": (
        "Na suđenje #{trial} žali se samo njegova strana.",
        "Only a party of trial #{trial} may appeal against it.",
    ),
    "appeal.unknown_kind": (
        "Nepoznata vrsta žalbe {kind}; vrste (dana): {kinds}.",
        "Unknown kind of appeal {kind}; the kinds (days): {kinds}.",
    ),
    "appeal.too_late": (
        "Rok za žalbu ({kind}, {days} dana od presude na suđenju #{trial}) je istekao {deadline}.",
        "The time to appeal ({kind}, {days} days from the verdict of trial #{trial}) ran out at {deadline}.",
    ),
    "appeal.already": ("Već ste se žalili na suđenje #{trial}.", "You have already appealed against trial #{trial}."),
    "appeal.filed": (
        "Žalba #{appeal} na suđenje #{trial} ({kind}) je predata većnicima; odluka do {until}.",
        "Appeal #{appeal} against trial #{trial} ({kind}) went to the councilors; a decision by {until}.",
    ),
    "button.appeal_take": ("Preuzmi", "Preuzmi"),
    "appeal.notice": (
        "Žalba #{appeal} na suđenje #{trial} (partija {game}, {kind}) čeka većnika. Podnosilac: {appellant}. {text}",
        "Appeal #{appeal} against trial #{trial} (game {game}, {kind}) waits for a councilor. "
        "Appellant: {appellant}. {text}",
    ),
    "appeal.unknown": ("Nema žalbe #{appeal}.", "There is no appeal #{appeal}."),
    "appeal.not_councilor": ("Žalbe rešavaju samo većnici.", "Only councilors decide appeals."),
    "appeal.took_part": (
        "Učestvovali ste u suđenju #{trial}: tu žalbu rešava drugi većnik.",
        "You took part in trial #{trial}: another councilor decides this appeal.",
    ),
    "appeal.gone": (
        "Žalbu #{appeal} je već preuzeo većnik {councilor}.",
        "Councilor {councilor} already took appeal #{appeal}.",
    ),
    "appeal.game_busy": (
        "Za partiju {game} je sada u toku suđenje; preuzmite žalbu kad se završi.",
        "A trial of game {game} is on now; take the appeal when it ends.",
    ),
    "appeal.game_in_progress": (
        "Partija {game} se još igra; žalba se preuzima kad se završi.",
        "Game {game} is still being played; the appeal is taken when it ends.",
    ),
    "appeal.notice_taken": (
        "Žalbu #{appeal} na suđenje #{trial} je preuzeo {councilor}.",
        "{councilor} took appeal #{appeal} against trial #{trial}.",
    ),
    "appeal.hearing_opened": (
        "Žalba #{appeal} na suđenje #{trial} (partija {game}): većnik {councilor} saslušava "
        "podnosioca {appellant}. Žalba: {text}",
        "Appeal #{appeal} against trial #{trial} (game {game}): councilor {councilor} hears the "
        "appellant {appellant}. Appeal: {text}",
    ),
    "appeal.take_ok": (
        "Preuzeli ste žalbu #{appeal}; saslušanje je suđenje #{hearing}, odluka do {until}. Usvojena: "
        "/presuda … pa Završi suđenje; odbijena ili nedopuštena: /resi {appeal} odbijena -- razlog. "
        "Suđenje #{trial}:",
        "You took appeal #{appeal}; the hearing is trial #{hearing}, a decision by {until}. Upheld: "
        "/presuda … then Završi suđenje; rejected or inadmissible: /resi {appeal} odbijena -- reason. "
        "Trial #{trial}:",
    ),
    "appeal.upheld_needs_draft": (
        "Žalba #{appeal} se usvaja novom presudom: zapišite je sa /presuda, pa završite.",
        "Appeal #{appeal} is upheld by a new verdict: draft it with /presuda, then finish.",
    ),
    "appeal.lift_only": (
        "Žalbom se može samo ukinuti kazna data nevinom igraču: nova presuda je (niko), a stara mora biti kazna.",
        "An appeal can only lift a penalty given to an innocent player: the new verdict is (niko) "
        "and the old one must be a penalty.",
    ),
    "appeal.decided_ok": ("Žalba #{appeal}: {state}.", "Appeal #{appeal}: {state}."),
    "appeal.state_filed": ("čeka većnika", "waiting for a councilor"),
    "appeal.state_taken": ("u razmatranju", "under review"),
    "appeal.state_upheld": ("usvojena", "upheld"),
    "appeal.state_rejected": ("odbijena", "rejected"),
    "appeal.state_inadmissible": ("nedopuštena", "inadmissible"),
    "appeal.not_yours": ("Žalbu #{appeal} ne razmatrate vi.", "You are not reviewing appeal #{appeal}."),
    "appeal.no_restrictions": (
        "Klub ne predviđa ograničenje prava žalbe.",
        "The club's rules have no appeal restriction.",
    ),
    "appeal.restriction_range": (
        "Ograničenje prava žalbe je od {low} do {high} dana.",
        "An appeal restriction is {low} to {high} days.",
    ),
    "appeal.hearing_closed": (
        "Žalba #{appeal}: {state}. Razlog: {reason}",
        "Appeal #{appeal}: {state}. Reason: {reason}",
    ),
    "appeal.told_decided": (
        "Vaša žalba #{appeal} na suđenje #{trial} je {state}. Razlog: {reason}",
        "Your appeal #{appeal} against trial #{trial} is {state}. Reason: {reason}",
    ),
    "appeal.told_new_verdict": ("Nova presuda: {verdict}", "The new verdict: {verdict}"),
    "appeal.told_restricted": (
        "Ograničeno vam je pravo žalbe {days} dana, do {until} (pozivi sudije i igra ostaju).",
        "Your right to appeal is restricted for {days} days, until {until} (calls and play stay).",
    ),
    "appeal.notice_decided": (
        "Žalba #{appeal} na suđenje #{trial}: {state}.",
        "Appeal #{appeal} against trial #{trial}: {state}.",
    ),
    "appeal.waiting": (
        "Žalba #{appeal} na suđenje #{trial} čeka više od {minutes} min: preuzmite je ako možete.",
        "Appeal #{appeal} against trial #{trial} has waited over {minutes} min: take it if you can.",
    ),
    "appeal.reminder": (
        "Podsetnik: o žalbi #{appeal} na suđenje #{trial} treba odlučiti do {until}.",
        "Reminder: appeal #{appeal} against trial #{trial} must be decided by {until}.",
    ),
    "appeal.overdue": (
        "Rok za odluku o žalbi #{appeal} na suđenje #{trial} je istekao {until}; žalba još čeka odluku.",
        "The time to decide appeal #{appeal} against trial #{trial} ran out at {until}; it still awaits a decision.",
    ),
    "appeal.list_not_allowed": (
        "Otvorene žalbe vide većnici i Vlasnik.",
        "Councilors and the owner see the open appeals.",
    ),
    "appeal.none_open": ("Nema otvorenih žalbi.", "No appeal is open."),
    "appeal.open_title": ("Otvorene žalbe:", "Open appeals:"),
    "appeal.open_line": (
        "  #{appeal} na suđenje #{trial} (partija {game}, {kind}), {appellant}: {state}, većnik {councilor}; odluka do "
        "{until}",
        "  #{appeal} against trial #{trial} (game {game}, {kind}), {appellant}: {state}, councilor {councilor}; "
        "decision by {until}",
    ),
    "appeal.list_title": ("Žalbe:", "Appeals:"),
    "appeal.councilor_label": ("većnik", "councilor"),
    "appeal.list_line": (
        "  žalba #{appeal} na suđenje #{trial} ({kind}), {appellant}, {filed}: {state}; većnik "
        "{councilor}; saslušanje: suđenje #{hearing}; razlog: {reason}",
        "  appeal #{appeal} against trial #{trial} ({kind}), {appellant}, {filed}: {state}; "
        "councilor {councilor}; hearing: trial #{hearing}; reason: {reason}",
    ),
    "appeal.list_restriction": ("    ograničenje prava žalbe: {days} dana", "    appeal restriction: {days} days"),
    # The general penalty model ---------------------------------------------------------------------------------
    "penalty_model.out_of_range": (
        "Kazna {name} ({kind}) je od {low} do {high}.",
        "The penalty {name} ({kind}) is {low} to {high}.",
    ),
    "penalty_model.fixed": (
        "Kazna {name} je {amount} ({kind}); ne bira se.",
        "The penalty {name} is {amount} ({kind}); it is not chosen.",
    ),
    "penalty_model.units_needed": (
        "Kazna {name} se računa po jedinici ({unit}); navedite koliko.",
        "The penalty {name} is counted per {unit}; say how many.",
    ),
    "penalty_model.not_applicable": (
        "Kazna {name} ({kind}) se u ovoj igri ne može izreći.",
        "The penalty {name} ({kind}) cannot be given in this game.",
    ),
    "penalty_model.repeat": (
        "Ponovljeni prekršaj ({name}, ponavljanje {repeat}): strožija kazna.",
        "A repeated offence ({name}, repeat {repeat}): a stricter penalty.",
    ),
    "penalty_model.title": (
        "Pravila kažnjavanja (prvi prekršaj → ponovljeni …):",
        "Penalty rules (first offence → repeats …):",
    ),
    "penalty_model.entry": ("  {name}: {steps}{repeat} — {description}", "  {name}: {steps}{repeat} — {description}"),
    "penalty_model.window": (" (ponavljanje u roku od {days} dana)", " (a repeat within {days} days)"),
    "penalty_model.per_unit": (
        "{kind} {amount} + {per} po jedinici ({unit}) posle {free}",
        "{kind} {amount} + {per} per {unit} after {free}",
    ),
    "penalty_kind.warning": ("opomena", "warning"),
    "penalty_kind.bule": ("bule", "bule"),
    "penalty_kind.league_points": ("poeni u Ligi", "league points"),
    "penalty_kind.top_share": ("% topa", "% of a top"),
    "penalty_kind.imps": ("IMP", "IMPs"),
    "penalty_kind.assigned_result": ("dodeljeni rezultat %", "assigned result %"),
    "penalty_kind.suspension_days": ("suspenzija (dana)", "suspension (days)"),
    "penalty_kind.call_restriction_days": ("zabrana poziva sudije (dana)", "no calling a referee (days)"),
    "penalty_kind.appeal_restriction_days": ("ograničenje prava žalbe (dana)", "appeal restriction (days)"),
    "penalty_kind.referral": ("prijava komisiji", "referral to a committee"),
    "appeal.kinds": (
        "Žalbe (/zalba SUĐENJE VRSTA), rok od presude: {kinds}; odluka u roku od {review} dana.",
        "Appeals (/zalba TRIAL KIND), time from the verdict: {kinds}; decided within {review} days.",
    ),
    "appeal.not_appealable": ("Ne razmatra se: {what}.", "Never reviewed: {what}."),
    "appeal.kind_entry": ("{name} {days} dana", "{name} {days} days"),
    # Commands --------------------------------------------------------------------------------------------------
    "name.glasaj": ("glasaj", "vote"),
    "cmd.glasaj": ("Većnik glasa o predlogu (da ili ne)", "A councilor votes on a proposal (yes or no)"),
    "usage.glasaj": (
        "/glasaj GLASANJE da|ne — glas većnika o prijemu ili razrešenju (može se promeniti)",
        "/glasaj VOTE da|ne — a councilor's ballot on an admission or dismissal (changeable)",
    ),
    "name.glasanje": ("glasanje", "vote"),
    "arg.glasanje": ("Broj glasanja", "The vote's number"),
    "usage.arg.glasanje": ("Broj glasanja mora biti ceo broj", "The vote's number must be a whole number"),
    "name.glas": ("glas", "ballot"),
    "arg.glas": ("Da: za; ne: protiv", "Yes: aye; no: no"),
    "name.zalba": ("zalba", "appeal"),
    "cmd.zalba": ("Žalba većnicima na zabeleženo suđenje", "Appeal to the councilors against a recorded trial"),
    "usage.zalba": (
        "/zalba SUĐENJE [VRSTA] [-- tekst] — žalba strane suđenja, u roku za svoju vrstu",
        "/zalba TRIAL [KIND] [-- text] — a party's appeal against a trial, within its kind's window",
    ),
    "arg.sudjenje_zalba": ("Broj suđenja na koje se žalite", "The number of the trial you appeal against"),
    "name.osnov": ("osnov", "kind"),
    "arg.osnov": ("Vrsta žalbe (bez: osnovna)", "The kind of appeal (empty: the default)"),
    "arg.razlog_zalba": ("Šta je pogrešno u presudi", "What is wrong with the verdict"),
    "name.preuzmi": ("preuzmi", "take_appeal"),
    "cmd.preuzmi": ("Većnik preuzima žalbu", "A councilor takes an appeal"),
    "usage.preuzmi": (
        "/preuzmi ŽALBA — većnik koji nije učestvovao u suđenju preuzima žalbu",
        "/preuzmi APPEAL — a councilor who took no part in the trial takes the appeal",
    ),
    "name.zalbe": ("zalbe", "appeals"),
    "cmd.zalbe": ("Otvorene žalbe (većnici)", "The open appeals (councilors)"),
    "usage.zalbe": (
        "/zalbe — žalbe koje čekaju većnika ili se razmatraju",
        "/zalbe — the appeals waiting or under review",
    ),
    "arg.zalba": ("Broj žalbe", "The appeal's number"),
    "usage.arg.zalba": ("Broj žalbe mora biti ceo broj", "The appeal's number must be a whole number"),
    "name.resi": ("resi", "decide"),
    "cmd.resi": ("Odluka većnika o žalbi", "A councilor's decision on an appeal"),
    "usage.resi": (
        "/resi ŽALBA usvojena|odbijena|nedopustena [DANA] -- razlog — odluka o žalbi (DANA: ograničenje prava žalbe)",
        "/resi APPEAL usvojena|odbijena|nedopustena [DAYS] -- reason — the decision on an appeal "
        "(DAYS: an appeal restriction)",
    ),
    "name.ishod": ("ishod", "outcome"),
    "arg.ishod": ("Usvojena, odbijena ili nedopuštena", "Upheld, rejected or inadmissible"),
    "usage.arg.ishod": (
        "Odluka je usvojena, odbijena ili nedopustena",
        "The decision is usvojena, odbijena or nedopustena",
    ),
    "choice.ishod.usvojena": ("usvojena", "upheld"),
    "choice.ishod.odbijena": ("odbijena", "rejected"),
    "choice.ishod.nedopustena": ("nedopuštena", "inadmissible"),
}
