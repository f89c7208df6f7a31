"""Every text the bot says, in Serbian (Latin script, the default) and English: one catalogue, no text in code.

`Catalogue(lang).t(key, **params)` formats a message; times are shown in UTC as ``2026-11-25 21:10 UTC`` and
durations as ``6 d 3 h 12 min``. A test checks that every key the code uses exists in both languages.
"""

from __future__ import annotations

from datetime import datetime, timedelta

MESSAGES: dict[str, tuple[str, str]] = {
    # key: (srpski, English)
    "call.ok": ("Pozvan je sudija za partiju {game}. Poziv traje {minutes} minuta; dok ga niko ne prihvati, "
                "možete ga povući.",
                "A referee has been called for game {game}. The call lasts {minutes} minutes; until a referee "
                "takes it you may withdraw it."),
    "call.denied_forever": ("Pravo da pozivate sudiju vam je uskraćeno dok ga većnici ili Vlasnik ne vrate.",
                            "Your right to call a referee is denied until the councilors or the owner restore it."),
    "call.denied_until": ("Pravo da pozivate sudiju vam je uskraćeno do {until}.",
                          "Your right to call a referee is denied until {until}."),
    "call.nothing_eligible": ("Nema partije za koju možete pozvati sudiju: za stolom ne sedite, a u poslednjih "
                              "{days} dana niste igrali završenu ili prekinutu partiju sa rejtingom i bez AI. "
                              "Navedite broj partije: /sudija 1847258.",
                              "There is no game you can call a referee for: you are not at a table, and in the "
                              "last {days} days you played no finished or interrupted rated game without AI. "
                              "Give the game's number: /sudija 1847258."),
    "call.unknown_game": ("Partija {game} ne postoji u evidenciji Kluba. Proverite broj u odeljku Partije.",
                          "Game {game} is not in the club's records. Check the number in the games section."),
    "call.not_your_game": ("U partiji {game} niste igrali: sudiju može pozvati samo igrač te partije.",
                           "You did not play in game {game}: only its players can call a referee for it."),
    "call.unrated": ("Partija {game} je bez rejtinga: takve partije ne podležu sudijskom sistemu. "
                     "Korekcija i Arbitar rade i u njoj.",
                     "Game {game} is unrated: such games are not subject to the referee system. Corrections and "
                     "the Arbitar still work in it."),
    "call.with_ai": ("U partiji {game} je igrao AI: takve partije ne podležu sudijskom sistemu. "
                     "Korekcija i Arbitar rade i u njoj.",
                     "Game {game} was played with AI: such games are not subject to the referee system. "
                     "Corrections and the Arbitar still work in it."),
    "call.too_old": ("Pravo na suđenje za partiju {game} je zastarelo: partija je završena ili prekinuta "
                     "{ended_at}, a od tada je proteklo {consumed} (rok je {days} dana; vreme dok poziv čeka ili "
                     "suđenje traje se ne računa).",
                     "The right to a trial for game {game} has lapsed: it ended or was interrupted at {ended_at} "
                     "and {consumed} have passed since (the limit is {days} days; time while a call is pending or "
                     "a trial is on does not count)."),
    "call.already_open": ("Za partiju {game} poziv već čeka ili suđenje traje; novi poziv nije moguć.",
                          "A call for game {game} is already pending or its trial is on; no new call is possible."),
    "call.caller_has_pending": ("Već imate poziv koji čeka (partija {game}). Povucite ga ili sačekajte da istekne.",
                                "You already have a call pending (game {game}). Withdraw it or let it expire."),
    "call.notice_in_game": ("🔴 Poziv sudiji za partiju {game} (u toku), pozvao {caller}. Važi do {until}.",
                            "🔴 Referee call for game {game} (in progress), from {caller}. Open until {until}."),
    "call.notice_out_of_game": ("🔴 Poziv sudiji za partiju {game}, pozvao {caller}. Važi do {until}.",
                                "🔴 Referee call for game {game}, from {caller}. Open until {until}."),
    "call.notice_withdrawn": ("Poziv za partiju {game} ({caller}) je povučen.",
                              "The call for game {game} ({caller}) was withdrawn."),
    "call.notice_taken": ("Poziv za partiju {game} ({caller}) je prihvatio sudija {referee}.",
                          "The call for game {game} ({caller}) was taken by referee {referee}."),
    "call.notice_expired": ("Poziv za partiju {game} ({caller}) je istekao bez odgovora.",
                            "The call for game {game} ({caller}) expired unanswered."),
    "call.expired": ("Nijedan sudija nije odgovorio na poziv za partiju {game} u roku od {minutes} minuta. "
                     "Postupajte kao da sudijska funkcija ne postoji.",
                     "No referee answered the call for game {game} within {minutes} minutes. Carry on as if "
                     "there were no referee system."),
    "table.called": ("{nick} je pozvao sudiju.", "{nick} has called a referee."),
    "table.withdrawn": ("{nick} je povukao poziv sudiji.", "{nick} has withdrawn the referee call."),
    "table.expired": ("Nijedan sudija nije odgovorio; igra se nastavlja kao da sudijska funkcija ne postoji.",
                      "No referee answered; play goes on as if there were no referee system."),
    "table.paused": ("Igra je zaustavljena: suđenje je u toku.", "Play is stopped: a trial is on."),
    "table.resumed": ("Suđenje je završeno; igra se nastavlja.", "The trial is over; play goes on."),
    "button.withdraw": ("Povuci poziv", "Withdraw call"),
    "button.take": ("Sudi", "Sudi"),
    "button.hands": ("Prikaz ruke", "Show hands"),
    # The referee's second opinion (bot.desk.advice): the briefing, the Arbitar's advice, a draft's difference.
    "button.advice": ("Analiza ruke {hand}", "Analyse hand {hand}"),
    "name.analiza": ("analiza", "analysis"),
    "cmd.analiza": ("(sudija) Savet Arbitra o padu u ruci: samo za vas, nije presuda",
                    "(referee) The Arbitar's advice on a fall in a hand: for you alone, not a verdict"),
    "usage.analiza": ("/analiza RUKA — (sudija) analiza Arbitra za pad odbrambenog igrača u ruci: savet samo za "
                      "vas, ne upisuje se i igrači ga ne vide",
                      "/analiza HAND — (referee) the Arbitar's analysis of a defender's fall in the hand: advice "
                      "for you alone, never recorded, never shown to the players"),
    "advice.title": ("Savet Arbitra, partija {game}, ruka {hand} — samo savet: ne upisuje se kao presuda i igrači "
                     "ga ne vide.",
                     "The Arbitar's advice, game {game}, hand {hand} — advice only: never recorded as a verdict, "
                     "never shown to the players."),
    "advice.fallen": ("Pad igrača {nick}:", "The fall of {nick}:"),
    "advice.decides_stays": ("Arbitar: pad ostaje — {reason}", "Arbitar: the fall stays — {reason}"),
    "advice.decides_transfer": ("Arbitar: pad prelazi na {to} — {reason}",
                                "Arbitar: the fall moves to {to} — {reason}"),
    "advice.cards": ("Greške u kartama (korak 1):", "Card errors (step 1):"),
    "advice.card_error": ("{player}: u {trick}. štihu {card} umesto {better} — u stvarnom rasporedu odigravač nosi "
                          "{with_card} štiha od tog štiha, sa boljom kartom {with_better}; od {layouts} rasporeda "
                          "{consistent} odgovara licitaciji: bolja karta je bolja u {better_count}, odigrana u "
                          "{worse_count} (prag {bar}).",
                          "{player}: at trick {trick} {card} instead of {better} — in the real layout the declarer "
                          "takes {with_card} tricks from there, {with_better} with the better card; of {layouts} "
                          "layouts {consistent} fit the bidding: the better card is better in {better_count}, the "
                          "card played in {worse_count} (bar {bar})."),
    "advice.card_lead": ("{player}: polaz u {trick}. štihu {card} umesto {better} — polaz procenjuje sudija; od "
                         "{consistent} rasporeda koji odgovaraju licitaciji bolja karta je bolja u {better_count}, "
                         "odigrana u {worse_count} (prag {bar}).",
                         "{player}: the opening lead at trick {trick}, {card} instead of {better} — the referee weighs "
                         "the lead; of {consistent} layouts that fit the bidding the better card is better in "
                         "{better_count}, the card played in {worse_count} (bar {bar})."),
    "advice.card_checked": ("{player}: {card} u {trick}. štihu (umesto {better}) nije greška po pravilu 10% — od "
                            "{consistent} rasporeda koji odgovaraju licitaciji bolja karta je bolja u "
                            "{better_count}, odigrana u {worse_count} (prag {bar}).",
                            "{player}: {card} at trick {trick} (instead of {better}) is no error by the 10% rule — "
                            "of {consistent} layouts that fit the bidding the better card is better in "
                            "{better_count}, the card played in {worse_count} (bar {bar})."),
    "advice.no_card_error": ("{player}: Arbitar nije našao grešku u kartama koja odlučuje.",
                             "{player}: the Arbitar found no card error that decides."),
    "advice.rezons": ("Rezoni (korak 2): {fallen} {rf} (asova {af}) — {meets}; {other} {ro} (asova {ao}) — {bad}.",
                      "Rezons (step 2): {fallen} {rf} ({af} aces) — {meets}; {other} {ro} ({ao} aces) — {bad}."),
    "advice.meets": ("ispunjava pravila", "meets the rules"),
    "advice.below_rules": ("ne ispunjava pravila", "below the rules"),
    "advice.obviously_bad": ("očigledno loše praćenje", "obviously bad following"),
    "advice.not_obviously_bad": ("nije očigledno loše praćenje", "not obviously bad following"),
    "advice.no_step2": ("Rezoni (korak 2): ne gledaju se — nisu pratila oba protivnika bez kontre i bez zovem.",
                        "Rezons (step 2): not looked at — the defenders did not both follow without kontra or "
                        "zovem."),
    "advice.output": ("Izlaz Arbitra (isti kao sudija arbitar):", "The Arbitar's output (as sudija arbitar):"),
    "advice.failed": ("Arbitar nije mogao da analizira pad igrača {nick}.",
                      "The Arbitar could not analyse the fall of {nick}."),
    "advice.footer": ("Presudu donosite vi; savet Arbitra je ne obavezuje.",
                      "The verdict is yours; the Arbitar's advice does not bind it."),
    "advice.no_hand": ("Partija {game} nema ruku {hand}.", "Game {game} has no hand {hand}."),
    "advice.not_completed": ("Ruka {hand} još nije završena: Arbitar analizira samo završene ruke.",
                             "Hand {hand} is not finished yet: the Arbitar analyses finished hands only."),
    "advice.no_fall": ("U ruci {hand} nije pao nijedan odbrambeni igrač: Arbitar nema šta da analizira.",
                       "No defender fell in hand {hand}: the Arbitar has nothing to analyse."),
    "advice.unavailable": ("Arbitar nije dostupan na ovom serveru.", "The Arbitar is not available on this server."),
    "advice.draft_note": ("Savet Arbitra drugačiji je od nacrta (nacrt ostaje kakav ste ga sastavili):",
                          "The Arbitar's advice differs from the draft (the draft stands as you made it):"),
    "brief.title": ("Pre presude pregledajte šta partija {game} već nosi (vidite samo vi):",
                    "Before judging, review what game {game} already carries (only you see this):"),
    "brief.judged_hand": ("ruka {hand} je već presuđena u suđenju {trial}: {verdict} (obrazloženje: {reason})",
                          "hand {hand} was already judged in trial {trial}: {verdict} (reason: {reason})"),
    "brief.judged_game": ("partija je već presuđena u suđenju {trial}: {verdict} (obrazloženje: {reason})",
                          "the game was already judged in trial {trial}: {verdict} (reason: {reason})"),
    "brief.ispravka": ("ruka {hand} nosi ispravku igrača: {nick} je upisan kao da je prošao",
                       "hand {hand} carries the players' ispravka: {nick} is recorded as passed"),
    "brief.odlazak": ("ruka {hand} nosi odlazak u bulu igrača: {nick} je otišao u bulu umesto drugog",
                      "hand {hand} carries a player's odlazak u bulu: {nick} took the fall instead of the other"),
    "brief.arbitar": ("ruka {hand} nosi presudu Arbitra: pad je prebačen na {nick}",
                      "hand {hand} carries the Arbitar's verdict: the fall moved to {nick}"),
    "brief.rule": ("O presuđenom incidentu se ne sudi ponovo: obavestite igrače da ponovljeno suđenje nije moguće, "
                   "osim ako je ranija presuda nenamerno pogrešna.",
                   "An incident already judged is not judged again: tell the players a second trial is not "
                   "possible, unless the earlier verdict was unintentionally wrong."),
    "brief.history": ("Ranija suđenja ove partije:", "The game's earlier trials:"),
    "brief.trial": ("suđenje {trial} ({kind}, {opened}): {verdict}; obrazloženje: {reason}",
                    "trial {trial} ({kind}, {opened}): {verdict}; reason: {reason}"),
    "brief.trial_interrupted": ("suđenje {trial} ({kind}, {opened}): prekinuto — {why}",
                                "trial {trial} ({kind}, {opened}): interrupted — {why}"),
    "button.history": ("Suđenja", "Trials"),
    "button.councilor": ("Pozovi većnika", "Call a councilor"),
    "button.finish": ("Završi suđenje", "Završi suđenje"),
    "button.leave": ("Napusti suđenje", "Leave the trial"),
    "button.join": ("Uključi se", "Join"),
    "button.unknown": ("To dugme više ništa ne radi.", "That button does nothing any more."),
    "withdraw.none": ("Nemate poziv koji čeka.", "You have no call pending."),
    "withdraw.not_yours": ("To nije vaš poziv: poziv povlači samo onaj ko ga je uputio.",
                           "That is not your call: only the caller can withdraw it."),
    "withdraw.taken": ("Poziv je već prihvatio sudija {referee}; ne može se povući.",
                       "Referee {referee} has already taken the call; it cannot be withdrawn."),
    "withdraw.withdrawn": ("Poziv je već povučen.", "The call was already withdrawn."),
    "withdraw.expired": ("Poziv je već istekao.", "The call has already expired."),
    "withdraw.too_late": ("Poziv više ne čeka.", "The call is no longer pending."),
    "withdraw.ok": ("Poziv za partiju {game} je povučen.", "The call for game {game} is withdrawn."),
    "take.unknown": ("Taj poziv ne postoji.", "That call does not exist."),
    "take.not_referee": ("Samo sudije mogu prihvatiti poziv.", "Only referees can take a call."),
    "take.own_call": ("Ne možete suditi po sopstvenom pozivu.", "You cannot judge your own call."),
    "take.played": ("Igrali ste u partiji {game}: sudija ne može suditi u partiji u kojoj je učestvovao.",
                    "You played in game {game}: a referee cannot judge a game he took part in."),
    "take.judging": ("Već sudite u drugom suđenju; završite ga pre nego što prihvatite novi poziv.",
                     "You are already judging another trial; finish it before taking a new call."),
    "take.seated": ("Sedite za stolom; sudija prihvata pozive iz lobija.",
                    "You are seated at a table; referees take calls from the lobby."),
    "take.off_duty": ("Niste na dužnosti; uključite dežurstvo pa prihvatite poziv.",
                      "You are off duty; switch duty on to take calls."),
    "take.taken": ("Poziv za partiju {game} je već prihvatio sudija {referee}.",
                   "Referee {referee} has already taken the call for game {game}."),
    "take.in_progress": ("Poziv za partiju {game} upravo prihvata sudija {referee}.",
                         "Referee {referee} is taking the call for game {game} right now."),
    "take.withdrawn": ("Poziv za partiju {game} je povučen.", "The call for game {game} was withdrawn."),
    "take.expired": ("Poziv za partiju {game} je istekao.", "The call for game {game} has expired."),
    "take.ok": ("Sudite u partiji {game} (suđenje {trial}).", "You are judging game {game} (trial {trial})."),
    "trial.opened_in_game": ("Suđenje u partiji {game} (u toku): pozvao {caller}, sudi {referee}. Igra je "
                             "zaustavljena.",
                             "Trial in game {game} (in progress): called by {caller}, judged by {referee}. Play is "
                             "stopped."),
    "trial.opened_out_of_game": ("Suđenje za partiju {game}: pozvao {caller}, sudi {referee}.",
                                 "Trial for game {game}: called by {caller}, judged by {referee}."),
    "trial.not_your_trial": ("Ne sudite u tom suđenju (ili je ono završeno).",
                             "You are not judging that trial (or it is over)."),
    "trial.finished": ("Suđenje za partiju {game} je završeno. Presuda: {verdict}. Obrazloženje: {reason}",
                       "The trial for game {game} is over. Verdict: {verdict}. Reason: {reason}"),
    "trial.interrupted": ("Suđenje za partiju {game} je prekinuto ({why}); ništa nije upisano i sudija se može "
                          "ponovo pozvati.",
                          "The trial for game {game} was interrupted ({why}); nothing was recorded and a referee "
                          "may be called again."),
    "draft.saved": ("Nacrt presude: {verdict}. Upisuje se tek kad pritisnete Završi suđenje; novim nacrtom ga "
                    "zamenjujete.",
                    "Draft verdict: {verdict}. It is recorded only when you press Završi suđenje; a new draft "
                    "replaces it."),
    "promeni.in_game": ("Promeni… postoji samo kod suđenja van partije.", "Promeni… exists only out of game."),
    "promeni.same": ("Suđenje se već odnosi na partiju {game}.", "The trial is already about game {game}."),
    "promeni.done": ("Suđenje se sada odnosi na partiju {game}; nacrt presude je odbačen.",
                     "The trial is now about game {game}; the draft verdict was dropped."),
    "promeni.ok": ("Partija je promenjena na {game}.", "The game is now {game}."),
    "councilor.out_of_game": ("Van partije se većnik ne poziva.", "Councilors are not called out of game."),
    "councilor.pending": ("Poziv većniku već čeka.", "A councilor call is already pending."),
    "councilor.notice": ("🔴 Sudija poziva većnika u suđenje za partiju {game}. Važi do {until}.",
                         "🔴 A referee asks for a councilor in the trial of game {game}. Open until {until}."),
    "councilor.called": ("Pozvan je većnik; ako se niko ne javi za {minutes} minuta, sudija odlučuje sam.",
                         "A councilor has been called; if none answers within {minutes} minutes the referee "
                         "decides alone."),
    "councilor.ok": ("Većnici u lobiju su pozvani.", "The councilors in the lobby have been called."),
    "councilor.not_councilor": ("Samo većnici se uključuju na ovaj poziv.", "Only councilors can answer this call."),
    "councilor.gone": ("Poziv više ne čeka (javio se {councilor}).", "The call is no longer pending ({councilor})."),
    "councilor.notice_taken": ("Većnik {councilor} se uključio u suđenje za partiju {game}.",
                               "Councilor {councilor} joined the trial of game {game}."),
    "councilor.joined": ("Većnik {nick} se uključio u suđenje.", "Councilor {nick} has joined the trial."),
    "councilor.join_ok": ("Uključeni ste u suđenje {trial} (partija {game}).",
                          "You have joined trial {trial} (game {game})."),
    "councilor.notice_expired": ("Poziv većniku za partiju {game} je istekao.",
                                 "The councilor call for game {game} expired."),
    "councilor.expired": ("Nijedan većnik se nije javio; sudija odlučuje sam.",
                          "No councilor answered; the referee decides alone."),
    "finish.draft_invalid": ("Nacrt se ne može upisati: {why} Napravite novi nacrt.",
                             "The draft cannot be recorded: {why} Make a new draft."),
    "finish.ok": ("Presuda za partiju {game} je upisana.", "The verdict for game {game} is recorded."),
    "leave.ok": ("Napustili ste suđenje; nacrt je odbačen.", "You left the trial; the draft was dropped."),
    "end.referee_left": ("sudija je napustio suđenje", "the referee left"),
    "end.caller_left": ("pozivalac je napustio Klub", "the caller left the club"),
    "end.game_closed": ("partiju je zatvorio administrator", "an administrator closed the game"),
    "end.referee_disconnected": ("sudija je izgubio vezu", "the referee disconnected"),
    "end.unknown": ("nepoznat razlog", "unknown reason"),
    "end.referee_dismissed": ("sudija više nema sudijsku funkciju", "the referee no longer holds the function"),
    "gov.not_self": ("Sebi ne možete dodeliti funkciju; to čini Vlasnik ili drugi većnik.",
                     "You cannot give yourself a function; the owner or another councilor does that."),
    "take.offline": ("Niste prijavljeni kao prisutni; poziv prihvata sudija koji je u lobiju.",
                     "You are shown offline; a call is taken by a referee in the lobby."),
    "verdict.same_player_twice": ("{nick} je naveden dva puta; navedite svakog igrača jednom.",
                                  "{nick} is named twice; name each player once."),
    "promeni.in_progress": ("Partija {game} je još u toku: van partije se sudi samo završenoj ili prekinutoj "
                            "partiji.",
                            "Game {game} is still in progress: out of game only a finished or interrupted game is "
                            "judged."),
    "promeni.caller_not_player": ("{caller} nije igrao u partiji {game}: suđenje se može preneti samo na partiju "
                                  "pozivaoca.",
                                  "{caller} did not play in game {game}: the trial can move only to a game of the "
                                  "caller."),
    "promeni.too_old": ("Partija {game} je završena ili prekinuta {ended_at}; do poziva je proteklo {consumed} "
                        "(rok je {days} dana).",
                        "Game {game} ended or was interrupted at {ended_at}; {consumed} had passed by the time of "
                        "the call (the limit is {days} days)."),
    "councilor.notice_cancelled": ("Poziv većniku za partiju {game} više ne važi: suđenje je završeno.",
                                   "The councilor call for game {game} no longer stands: the trial is over."),
    "number.too_big": ("Broj {value} je prevelik.", "The number {value} is too big."),
    "duty.no_function": ("Dežurstvo imaju samo sudije i većnici.", "Only referees and councilors have a duty."),
    "duty.on": ("Na dužnosti ste: dobijaćete pozive dok ste u lobiju.",
                "You are on duty: you will get calls while in the lobby."),
    "duty.off": ("Niste na dužnosti: ne dobijate pozive.", "You are off duty: you get no calls."),
    "hands.title": ("Partija {game} — {players}", "Game {game} — {players}"),
    "hands.in_progress": ("(u toku)", "(in progress)"),
    "hands.hand": ("Ruka {n}, deli {dealer}", "Hand {n}, dealt by {dealer}"),
    "hands.bids": ("licitacija", "bidding"),
    "hands.all_pass": ("svi su rekli dalje", "all passed"),
    "hands.contract": ("igra {declarer}: {contract}", "{declarer} plays {contract}"),
    "hands.discards": ("škart", "discards"),
    "decision.follows": ("dođem", "follows"),
    "decision.passes": ("ne dođem", "passes"),
    "decision.calls": ("zovem", "calls"),
    "verdict.hand": ("u ruci {hand}", "in hand {hand}"),
    "verdict.whole_game": ("za partiju u celini", "for the game as a whole"),
    "verdict.show.bule": ("Promena bula {where}: {amounts}", "Bula change {where}: {amounts}"),
    "verdict.show.bula": ("Odlazak u bulu umesto drugog u ruci {hand}: pad preuzima {culprit}",
                                   "Fall transferred in hand {hand}: {culprit} takes the fall"),
    "verdict.show.plavac": ("plavac {days} dana", "plavac {days} days"),
    "verdict.show.league": ("{points} kaznenih poena u Ligi", "{points} league penalty points"),
    "verdict.show.abandoned": ("napuštena partija", "abandoned game"),
    "verdict.show.deny_call": ("bez prava na poziv sudije {days} dana", "no right to call a referee for {days} days"),
    "verdict.show.kazna": ("Kazna za {culprit}: {what}", "Penalty for {culprit}: {what}"),
    "verdict.show.svodjenje": ("Ručno svođenje partije", "Manual settlement of the game"),
    "verdict.show.niko": ("(niko) — niko nije kriv", "(niko) — nobody is guilty"),
    "verdict.show.bez": ("Bez presude", "No verdict (Bez presude)"),
    "verdict.wrong_place_in_game": ("Tokom partije presuda je Promena bula, Odlazak u bulu umesto drugog ili Bez "
                                    "presude.",
                                    "In game a verdict is a bula change, a fall transfer or Bez presude."),
    "verdict.wrong_place_out_of_game": ("Van partije presuda je ručno svođenje, kazna (plavac i/ili poeni u Ligi), "
                                        "(niko) ili Bez presude.",
                                        "Out of game a verdict is a manual settlement, a penalty (plavac and/or "
                                        "league points), (niko) or Bez presude."),
    "verdict.reason_required": ("Za ovu presudu je obavezno obrazloženje.", "This verdict needs a reason."),
    "verdict.no_amounts": ("Navedite bar jednog igrača i broj bula.", "Name at least one player and an amount."),
    "verdict.not_a_player": ("{nick} nije igrač ove partije.", "{nick} is not a player of this game."),
    "verdict.bad_amount": ("Promena bula za {nick} ({amount}) mora biti paran broj različit od nule, najviše "
                           "{limit} po igraču.",
                           "The bula change for {nick} ({amount}) must be an even non-zero number of at most "
                           "{limit} per player."),
    "verdict.no_completed_hand": ("U partiji još nema završene ruke.", "The game has no completed hand yet."),
    "verdict.plavac_limit": ("Plavac može trajati najviše {limit} dana (traženo {days}).",
                             "A plavac lasts at most {limit} days (asked {days})."),
    "verdict.league_limit": ("Najviše {limit} kaznenih poena u Ligi (traženo {points}).",
                             "At most {limit} league penalty points (asked {points})."),
    "verdict.empty_penalty": ("Kazna mora imati plavac, poene u Ligi ili napuštenu partiju.",
                              "A penalty needs a plavac, league points or an abandoned game."),
    "verdict.settlement_confirm": ("Potvrdite da svođenje nije protiv interesa nevinog igrača.",
                                   "Confirm that the settlement is not against an innocent player's interest."),
    "verdict.hand_not_completed": ("Ruka {hand} nije završena (završeno je {completed}); sudi se samo o završenoj "
                                   "ruci.",
                                   "Hand {hand} is not completed ({completed} are); only completed hands can be "
                                   "judged."),
    "verdict.too_late": ("O sadržaju ruke {hand} moglo se presuditi samo do kraja naredne ruke (završeno je "
                         "{completed}); ako je kašnjenje opravdano, označite to u nacrtu.",
                         "The content of hand {hand} could be judged only until the next hand ended ({completed} "
                         "are completed); if the delay was justified, mark it in the draft."),
    "paper.refused": ("{message}", "{message}"),
    "papir.unknown": ("Partija {game} nije u bazi {db}.", "Game {game} is not in the database {db}."),
    "papir.no_db": ("Baza {db} ne postoji; prvo uvezite logove partija.",
                    "The database {db} does not exist; import game logs first."),
    "papir.report": ("Razlike između upisanog rezultata u logu i izračunatog papira (provera pri uvozu):",
                     "Differences between the score recorded in the log and the computed paper (checked at import):"),
    # Corrections without a referee (bot/desk/corrections.py)
    "button.consent": ("Prihvatam", "I agree"),
    "button.decline": ("Odbijam", "I refuse"),
    "button.cancel_odlazak": ("Poništi odlazak u bulu", "Cancel the odlazak u bulu"),
    "correction.no_game": ("Ne sedite za stolom i nemate partiju u toku: navedite broj partije posle broja ruke "
                           "(npr. /bula 3 1847258).",
                           "You are not at a table and have no game in progress: give the game's number after the "
                           "hand (e.g. /bula 3 1847258)."),
    "correction.not_player": ("U partiji {game} niste igrali: korekcije rade samo njeni igrači.",
                              "You did not play in game {game}: only its players make corrections."),
    "correction.no_hand": ("Ruka {hand} ne postoji: partija {game} ima {count} ruku.",
                           "There is no hand {hand}: game {game} has {count} hands."),
    "correction.hand_not_scored": ("Ruka {hand} partije {game} nije završena ili se ne računa na papiru.",
                                   "Hand {hand} of game {game} is not finished or does not count on the paper."),
    "correction.nobody_fell": ("U ruci {hand} niko nije pao: nema šta da se ispravlja.",
                               "Nobody fell in hand {hand}: there is nothing to correct."),
    "correction.game_finished": ("Partija {game} je završena: korekcije se rade samo dok partija traje.",
                                 "Game {game} has finished: corrections are made only while the game goes on."),
    "correction.too_late": ("Prekasno: ruka {next} je završena, a za ruku {hand} se ovo može samo do kraja "
                            "naredne ruke.",
                            "Too late: hand {next} has ended, and for hand {hand} this is possible only until the "
                            "end of the next hand."),
    "correction.busy": ("Papir se upravo menja; pokušajte ponovo.", "The paper is changing right now; try again."),
    "correction.declarer_odlazak": ("U ruci {hand} ste odigravač: u bulu umesto drugog ide samo branilac koji "
                                    "nije pao.",
                                    "You are the declarer in hand {hand}: only the defender who did not fall goes "
                                    "into the bule for the other."),
    "correction.you_fell": ("U ruci {hand} ste pali: u bulu umesto drugog ide igrač koji nije pao. Ako smatrate "
                            "da je pad tuđa greška, ponudite Arbitra: /arbitar {hand}",
                            "You fell in hand {hand}: the player who did not fall is the one who goes into the bule "
                            "for the other. If you think your fall is the other's fault, offer the Arbitar: "
                            "/arbitar {hand}"),
    "correction.partner_did_not_fall": ("U ruci {hand} {nick} nije pao, pa nema pada koji biste preuzeli.",
                                        "In hand {hand} {nick} did not fall, so there is no fall to take over."),
    "correction.fall_corrected": ("Pad igrača {nick} u ruci {hand} je već ispravljen (Ispravka).",
                                  "{nick}'s fall in hand {hand} has already been corrected (Ispravka)."),
    "correction.fall_moved": ("Pad u ruci {hand} je već prebačen (odlazak u bulu): Arbitar nema šta da presudi.",
                              "The fall in hand {hand} has already moved (odlazak u bulu): the Arbitar has nothing "
                              "to decide."),
    "correction.odlazak_ok": ("Otišli ste u bulu umesto igrača {fallen} u ruci {hand} partije {game} ({amount} "
                              "bula). Upisano je na papir; {fallen} to može da poništi do kraja naredne ruke.",
                              "You went into the bule instead of {fallen} in hand {hand} of game {game} ({amount} "
                              "bule). It is on the paper; {fallen} may cancel it until the end of the next hand."),
    "correction.odlazak_done": ("{nick} je otišao u bulu umesto igrača {fallen} u ruci {hand} (partija {game}). "
                                "{fallen} to može da poništi do kraja naredne ruke: /ponisti {hand}",
                                "{nick} went into the bule instead of {fallen} in hand {hand} (game {game}). "
                                "{fallen} may cancel it until the end of the next hand: /ponisti {hand}"),
    "correction.odlazak_cancelled": ("{nick} je poništio odlazak u bulu u ruci {hand} (partija {game}); pad je "
                                     "ponovo njegov.",
                                     "{nick} cancelled the odlazak u bulu in hand {hand} (game {game}); the fall is "
                                     "his again."),
    "correction.ispravka_cancelled": ("{nick} je poništio svoju ispravku u ruci {hand} (partija {game}); ruka se "
                                      "računa kako je odigrana.",
                                      "{nick} cancelled his ispravka in hand {hand} (game {game}); the hand counts "
                                      "as played."),
    "correction.nothing_to_cancel": ("U ruci {hand} nemate šta da poništite.",
                                     "There is nothing for you to cancel in hand {hand}."),
    "correction.which_cancel": ("U ruci {hand} možete poništiti više stvari ({options}): navedite koju, npr. "
                                "/ponisti {hand} bula",
                                "In hand {hand} you can cancel more than one thing ({options}): say which, e.g. "
                                "/ponisti {hand} bula"),
    "correction.referee_imposed": ("Ovu promenu u ruci {hand} upisao je sudija: ne može se poništiti.",
                                   "A referee recorded this change in hand {hand}: it cannot be cancelled."),
    "correction.arbitar_imposed": ("Odlazak u bulu u ruci {hand} nametnuo je Arbitar: ne može se poništiti.",
                                   "The Arbitar imposed the odlazak u bulu in hand {hand}: it cannot be cancelled."),
    "correction.cancel_moves_end": ("Poništavanje bi promenilo kraj partije, pa nije moguće (ruka {hand}).",
                                    "Cancelling would change the game's end, so it is not possible (hand {hand})."),
    "correction.withdrawn_ok": ("Povukli ste svoj predlog za ruku {hand}.",
                                "You withdrew your proposal for hand {hand}."),
    "correction.arbitar_withdrawn": ("{nick} je povukao ponudu Arbitra za ruku {hand}.",
                                     "{nick} withdrew the offer of the Arbitar for hand {hand}."),
    "correction.ispravka_withdrawn": ("{nick} je povukao predlog ispravke za ruku {hand}.",
                                      "{nick} withdrew the proposed ispravka for hand {hand}."),
    "correction.arbitar_declarer": ("Arbitra nudi branilac koji je pao; u ruci {hand} ste odigravač.",
                                    "The Arbitar is offered by the defender who fell; in hand {hand} you are the "
                                    "declarer."),
    "correction.arbitar_not_fallen": ("U ruci {hand} niste pali: Arbitra nudi igrač koji je pao.",
                                      "You did not fall in hand {hand}: the Arbitar is offered by the player who "
                                      "fell."),
    "correction.arbitar_decided": ("Arbitar je već presudio za ruku {hand}; presuda je obavezujuća.",
                                   "The Arbitar has already decided hand {hand}; its verdict binds."),
    "correction.arbitar_refused_before": ("Drugi branilac je već odbio Arbitra za ruku {hand}.",
                                          "The other defender has already refused the Arbitar for hand {hand}."),
    "correction.arbitar_pending": ("Ponuda Arbitra za ruku {hand} već čeka odgovor.",
                                   "An offer of the Arbitar for hand {hand} is already waiting for an answer."),
    "correction.arbitar_unavailable": ("Arbitar trenutno nije dostupan; pokušajte kasnije.",
                                       "The Arbitar is not available at the moment; try later."),
    "correction.arbitar_failed": ("Arbitar nije uspeo da presudi (ponuda {request} i dalje važi); javite "
                                  "administratoru.",
                                  "The Arbitar could not decide (offer {request} still stands); tell the "
                                  "administrator."),
    "correction.arbitar_offer_ok": ("Ponudili ste Arbitra za ruku {hand}; čeka se odgovor igrača {other} "
                                    "(ponuda {request}).",
                                    "You offered the Arbitar for hand {hand}; waiting for {other}'s answer "
                                    "(offer {request})."),
    "correction.arbitar_offered": ("{nick} nudi Arbitra za svoj pad u ruci {hand} (ponuda {request}). {other}, "
                                   "ako pristanete, Arbitar presuđuje odmah i presuda je obavezujuća: /prihvatam "
                                   "{request} ili /odbijam {request}",
                                   "{nick} offers the Arbitar for his fall in hand {hand} (offer {request}). {other}, "
                                   "if you agree the Arbitar decides at once and its verdict binds: /prihvatam "
                                   "{request} or /odbijam {request}"),
    "correction.arbitar_transfer": ("Arbitar, ruka {hand}: pad se prebacuje sa igrača {fallen} na igrača {other} "
                                    "(korak {step}). {reason}\nDokazi: {evidence}\nOdlazak koji je nametnuo Arbitar "
                                    "ne može se poništiti.",
                                    "The Arbitar, hand {hand}: the fall moves from {fallen} to {other} (step {step})."
                                    " {reason}\nEvidence: {evidence}\nAn odlazak imposed by the Arbitar cannot be "
                                    "cancelled."),
    "correction.arbitar_stays": ("Arbitar, ruka {hand}: pad ostaje igraču {fallen} (korak {step}): {reason}\n"
                                 "Dokazi: {evidence}",
                                 "The Arbitar, hand {hand}: the fall stays with {fallen} (step {step}): {reason}\n"
                                 "Evidence: {evidence}"),
    "correction.may_call_referee": ("Partija podleže sudijskom sistemu: možete pozvati sudiju (/sudija {game}).",
                                    "The game is subject to the referee system: you may call a referee "
                                    "(/sudija {game})."),
    "correction.arbitar_refused": ("{nick} nije pristao na Arbitra za ruku {hand}: ništa se ne menja.",
                                   "{nick} did not agree to the Arbitar for hand {hand}: nothing changes."),
    "correction.arbitar_refuse_ok": ("Odbili ste Arbitra za ruku {hand}: ništa se ne menja.",
                                     "You refused the Arbitar for hand {hand}: nothing changes."),
    "correction.arbitar_lapsed": ("Ponuda Arbitra za ruku {hand} više ne važi: {why}",
                                  "The offer of the Arbitar for hand {hand} no longer stands: {why}"),
    "correction.lapsed_moved": ("pad u ruci {hand} je prebačen.", "the fall in hand {hand} has moved."),
    "correction.lapsed_corrected": ("pad u ruci {hand} je ispravljen.", "the fall in hand {hand} was corrected."),
    "correction.ispravka_not_fallen": ("U ruci {hand} niste pali: ispravku traži igrač koji je pao.",
                                       "You did not fall in hand {hand}: an ispravka is asked for by the player who "
                                       "fell."),
    "correction.ispravka_effect": ("{nick} {amount} bula", "{nick} {amount} bule"),
    "correction.ispravka_reduced": ("{nick} {amount} bula (umesto {full}: smanjeno da bi na papiru ostale 2 bule)",
                                    "{nick} {amount} bule (instead of {full}: reduced so that 2 bule stay on the "
                                    "paper)"),
    "correction.ispravka_propose_ok": ("Predložili ste ispravku za ruku {hand}: {effect}. Primenjuje se kad se "
                                       "slože {others} (predlog {request}).",
                                       "You proposed an ispravka for hand {hand}: {effect}. It applies when {others} "
                                       "agree (proposal {request})."),
    "correction.ispravka_proposed": ("{nick} traži ispravku pada u ruci {hand}: {effect} (razlog: {reason}). "
                                     "Primenjuje se ako se oba druga igrača slože: /prihvatam {request} ili "
                                     "/odbijam {request}",
                                     "{nick} asks for an ispravka of his fall in hand {hand}: {effect} (reason: "
                                     "{reason}). It applies if both other players agree: /prihvatam {request} or "
                                     "/odbijam {request}"),
    "correction.ispravka_proposed_replacing": ("{nick} traži ispravku u ruci {hand} umesto postojeće: {effect} "
                                               "(razlog: {reason}). Primenjuje se ako se oba druga igrača slože: "
                                               "/prihvatam {request} ili /odbijam {request}",
                                               "{nick} asks for an ispravka in hand {hand} replacing the standing "
                                               "one: {effect} (reason: {reason}). It applies if both other players "
                                               "agree: /prihvatam {request} or /odbijam {request}"),
    "correction.ispravka_applied": ("Ispravka u ruci {hand} je upisana: {effect}.",
                                    "The ispravka in hand {hand} is recorded: {effect}."),
    "correction.ispravka_refused": ("{nick} se ne slaže sa ispravkom za igrača {fallen} u ruci {hand}: ništa se "
                                    "ne menja.",
                                    "{nick} does not agree to the ispravka for {fallen} in hand {hand}: nothing "
                                    "changes."),
    "correction.ispravka_refuse_ok": ("Odbili ste ispravku u ruci {hand}: ništa se ne menja.",
                                      "You refused the ispravka in hand {hand}: nothing changes."),
    "correction.ispravka_lapsed": ("Predlog ispravke za ruku {hand} više ne važi: {why}",
                                   "The proposed ispravka for hand {hand} no longer stands: {why}"),
    "correction.consent_noted": ("{nick} se slaže (ruka {hand}); čeka se još: {waiting}.",
                                 "{nick} agrees (hand {hand}); still waiting for: {waiting}."),
    "correction.consent_ok": ("Vaš pristanak je upisan (ruka {hand}); čeka se još: {waiting}.",
                              "Your consent is recorded (hand {hand}); still waiting for: {waiting}."),
    "correction.nothing_to_answer": ("Nijedan predlog ne čeka vaš odgovor.", "No proposal is waiting for your answer."),
    "correction.which_request": ("Vaš odgovor čeka više predloga ({requests}): navedite broj, npr. /prihvatam "
                                 "{requests}",
                                 "More than one proposal waits for your answer ({requests}): give its number, e.g. "
                                 "/prihvatam {requests}"),
    "correction.unknown_request": ("Predlog {request} ne postoji.", "There is no proposal {request}."),
    "correction.not_pending": ("Predlog {request} više ne čeka odgovor.",
                               "Proposal {request} is no longer waiting for an answer."),
    "correction.not_asked": ("Predlog {request} ne čeka vaš odgovor.", "Proposal {request} is not waiting for you."),
    "correction.already_answered": ("Već ste odgovorili na predlog {request}.",
                                    "You have already answered proposal {request}."),
    "correction.status_title": ("Korekcije partije {game}:", "Corrections in game {game}:"),
    "correction.status_odlazak": ("ruka {hand}: {nick} je otišao u bulu umesto drugog",
                                  "hand {hand}: {nick} went into the bule instead of the other"),
    "correction.status_arbitar": ("ruka {hand}: Arbitar je prebacio pad na igrača {nick} (ne može se poništiti)",
                                  "hand {hand}: the Arbitar moved the fall to {nick} (cannot be cancelled)"),
    "correction.status_ispravka": ("ruka {hand}: ispravka — {nick} prolazi", "hand {hand}: ispravka — {nick} passes"),
    "correction.status_offer": ("ponuda {request}, ruka {hand}: {nick} nudi Arbitra; odgovara {waiting}",
                                "offer {request}, hand {hand}: {nick} offers the Arbitar; {waiting} answers"),
    "correction.status_proposal": ("predlog {request}, ruka {hand}: {nick} traži ispravku; čeka se {waiting}",
                                   "proposal {request}, hand {hand}: {nick} asks for an ispravka; waiting for "
                                   "{waiting}"),
    "correction.status_none": ("nema korekcija igrača ni predloga koji čekaju.",
                               "no players' corrections and no proposals waiting."),
    "usage.korekcije": ("/korekcije [PARTIJA] — korekcije igrača na papiru i predlozi koji čekaju odgovor",
                        "/korekcije [GAME] — the players' corrections on the paper and the proposals waiting"),
    "usage.bula": ("/bula RUKA [PARTIJA] — odlazak u bulu umesto drugog (igrač koji nije pao, do kraja "
                             "naredne ruke)",
                             "/bula HAND [GAME] — go into the bule instead of the other (the player who did not "
                             "fall, until the end of the next hand)"),
    "usage.ponisti": ("/ponisti RUKA [PARTIJA] [bula|ispravka|predlog|arbitar] — poništi odlazak u bulu umesto "
                      "vas, svoju ispravku ili svoj predlog",
                      "/ponisti HAND [GAME] [bula|ispravka|predlog|arbitar] — cancel an odlazak u bulu made for you, "
                      "your ispravka or your proposal"),
    "usage.arbitar": ("/arbitar RUKA [PARTIJA] — ponudite Arbitra za svoj pad (drugi branilac pristaje ili odbija)",
                      "/arbitar HAND [GAME] — offer the Arbitar for your fall (the other defender agrees or "
                      "refuses)"),
    "usage.ispravka": ("/ispravka RUKA [PARTIJA] [-- razlog] — tražite da vaš pad bude prolaz (slažu se druga dva "
                       "igrača)",
                       "/ispravka HAND [GAME] [-- reason] — ask that your fall count as a pass (the other two "
                       "agree)"),
    "usage.prihvatam": ("/prihvatam [BROJ] — pristanite na Arbitra ili ispravku",
                        "/prihvatam [NUMBER] — agree to the Arbitar or an ispravka"),
    "usage.odbijam": ("/odbijam [BROJ] — odbijte Arbitra ili ispravku",
                      "/odbijam [NUMBER] — refuse the Arbitar or an ispravka"),
    "usage.hand_game": ("Navedite broj ruke, pa po želji broj partije", "Give the hand number, then optionally the "
                        "game number"),
    "command.unknown": ("Nepoznata komanda /{name}. Pogledajte spisak komandi: /pomoc",
                        "Unknown command /{name}. See the list of commands: /pomoc"),
    "command.usage": ("{problem}\nUpotreba: {usage}", "{problem}\nUsage: {usage}"),
    "usage.sudija": ("/sudija [broj partije] — pozovi sudiju (bez broja: partija za kojom sedite ili poslednja)",
                     "/sudija [game number] — call a referee (no number: your table or your last game)"),
    "usage.povuci": ("/povuci — povuci svoj poziv dok ga sudija nije prihvatio",
                     "/povuci — withdraw your call while no referee has taken it"),
    "usage.presude": ("/presude <broj partije> [suđenje [strana]] — sva suđenja i presude partije; sa brojem "
                      "suđenja njegov ceo razgovor, po stranama",
                      "/presude <game number> [trial [page]] — every trial and verdict of the game; with a trial "
                      "number its whole conversation, page by page"),
    "usage.papir": ("/papir <broj partije> — papir partije", "/papir <game number> — the game's paper"),
    "usage.dezurstvo": ("/dezurstvo [da|ne] — sudija ili većnik uključuje ili isključuje dežurstvo",
                        "/dezurstvo [da|ne] — a referee or councilor switches duty on or off"),
    "usage.ruke": ("/ruke — (sudija) Prikaz ruke: sve karte svih ruku", "/ruke — (referee) show every hand"),
    "usage.sudjenja": ("/sudjenja — (sudija) ranija suđenja ove partije",
                       "/sudjenja — (referee) earlier trials of this game"),
    "usage.vecnik": ("/vecnik — (sudija, tokom partije) pozovi većnika",
                     "/vecnik — (referee, in game) call a councilor"),
    "usage.promeni": ("/promeni <broj partije> — (sudija, van partije) promeni partiju suđenja",
                      "/promeni <game number> — (referee, out of game) move the trial to another game"),
    "usage.presuda": ("/presuda bule [ruka N] NADIMAK ±N … [kasno] [-- obrazloženje] | /presuda bula RUKA KRIVAC "
                      "-- obrazloženje | /presuda kazna NADIMAK [plavac D] [liga P] [napustio] [-- obrazloženje] | "
                      "/presuda svodjenje potvrdjujem -- obrazloženje | /presuda niko -- obrazloženje | "
                      "/presuda bez -- obrazloženje",
                      "/presuda bule [ruka N] NICK ±N … [kasno] [-- reason] | /presuda bula HAND CULPRIT -- reason | "
                      "/presuda kazna NICK [plavac D] [liga P] [napustio] [-- reason] | /presuda svodjenje "
                      "potvrdjujem -- reason | /presuda niko -- reason | /presuda bez -- reason"),
    "usage.zavrsi": ("/zavrsi — (sudija) Završi suđenje: upisuje nacrt", "/zavrsi — (referee) finish and record"),
    "usage.napusti": ("/napusti — (sudija) napusti suđenje bez upisa", "/napusti — (referee) leave, nothing recorded"),
    "usage.one_game": ("Navedite jedan broj partije.", "Give one game number."),
    "usage.game_number": ("Broj partije mora biti ceo broj", "The game number must be a whole number"),
    "usage.yes_no": ("Napišite da ili ne.", "Write da or ne."),
    "usage.arg.vrsta": ("Vrsta presude je bule, bula, kazna, svodjenje, niko ili bez.",
                         "The verdict kind is bule, bula, kazna, svodjenje, niko or bez."),
    "usage.hand_number": ("Broj ruke mora biti ceo broj", "The hand number must be a whole number"),
    "usage.amounts": ("Posle 'bule' navedite parove NADIMAK ±BROJ.", "After 'bule' give pairs NICK ±N."),
    "usage.amount": ("Broj bula mora biti ceo broj", "The number of bule must be a whole number"),
    "usage.draft_bula": ("Posle 'bula' navedite broj ruke i krivca.", "After 'bula' give the hand and the culprit."),
    "usage.kazna": ("Posle 'kazna' navedite nadimak, pa plavac DANA, liga POENA i/ili napustio, ili po PREKRŠAJ "
                    "iz kataloga (/katalog).",
                    "After 'kazna' give the nick, then plavac DAYS, liga POINTS and/or napustio, or po OFFENCE from "
                    "the catalogue (/katalog)."),
    "usage.katalog": ("/katalog — katalog kazni Kluba (za /presuda kazna NADIMAK po PREKRŠAJ)",
                      "/katalog — the club's penalty catalogue (for /presuda kazna NICK po OFFENCE)"),
    "catalogue.empty": ("Klub nema katalog kazni; sudija kaznu određuje sam (plavac DANA, liga POENA).",
                        "The club has no penalty catalogue; the referee sets the penalty (plavac DAYS, liga POINTS)."),
    "catalogue.title": ("Katalog kazni (ponovljeni prekršaj u roku od {days} dana: ×{factor}):",
                        "Penalty catalogue (a repeat within {days} days: ×{factor}):"),
    "catalogue.title_plain": ("Katalog kazni:", "Penalty catalogue:"),
    "catalogue.entry": ("  {name}: {cost} — {description}", "  {name}: {cost} — {description}"),
    "catalogue.unknown": ("Prekršaj '{name}' nije u katalogu. Postoje: {names}.",
                          "The offence '{name}' is not in the catalogue. There are: {names}."),
    "catalogue.repeat": ("Ponovljeni prekršaj ({repeats}. put u roku od {days} dana): kazna je uvećana.",
                         "A repeat offence ({repeats} earlier within {days} days): the penalty is raised."),
    "catalogue.capped": ("Uvećana kazna je ograničena na najviše {plavac} dana i {points} poena.",
                         "The raised penalty is capped at {plavac} days and {points} points."),
    "usage.days": ("Broj dana mora biti ceo broj", "The number of days must be a whole number"),
    "usage.points": ("Broj poena mora biti ceo broj", "The number of points must be a whole number"),
    "presude.none": ("Za partiju {game} nema suđenja.", "Game {game} has no trials."),
    "presude.title": ("Suđenja u partiji {game}:", "Trials of game {game}:"),
    "presude.hidden": ("sudija", "a referee"),
    "presude.trial": ("#{id} {kind}, pozvao {caller}, sudi {referee}, {opened}",
                      "#{id} {kind}, called by {caller}, judged by {referee}, {opened}"),
    "presude.open": ("suđenje je u toku", "the trial is on"),
    "presude.interrupted": ("prekinuto: {why}; bez upisa", "interrupted: {why}; nothing recorded"),
    "presude.reason": ("obrazloženje: {reason}", "reason: {reason}"),
    "kind.in_game": ("tokom partije", "in game"),
    "kind.out_of_game": ("van partije", "out of game"),
    # Discord adapter (bot/discord/): command and option descriptions, thread names, draft modals
    "cmd.sudija": ("Pozovi sudiju (bez broja: partija za kojom sedite ili poslednja)",
                           "Call a referee (no number: your table or your last game)"),
    "cmd.povuci": ("Povuci svoj poziv dok ga sudija nije prihvatio",
                           "Withdraw your call while no referee has taken it"),
    "cmd.presude": ("Sva suđenja i presude partije", "Every trial and verdict of a game"),
    "cmd.papir": ("Papir partije", "The game's paper"),
    "cmd.dezurstvo": ("Sudija ili većnik uključuje ili isključuje dežurstvo",
                              "A referee or councilor switches duty on or off"),
    "cmd.nadimak": ("Poveži svoj nalog sa nadimkom u Klubu", "Link your account to your club nickname"),
    "cmd.ruke": ("(sudija) Prikaz ruke: sve karte svih ruku", "(referee) Show every hand"),
    "cmd.sudjenja": ("(sudija) Ranija suđenja ove partije", "(referee) Earlier trials of this game"),
    "cmd.vecnik": ("(sudija, tokom partije) Pozovi većnika", "(referee, in game) Call a councilor"),
    "cmd.promeni": ("(sudija, van partije) Promeni partiju suđenja",
                            "(referee, out of game) Move the trial to another game"),
    "cmd.presuda": ("(sudija) Nacrt presude", "(referee) Draft the verdict"),
    "cmd.zavrsi": ("(sudija) Završi suđenje: upisuje nacrt", "(referee) Finish the trial: record the draft"),
    "cmd.napusti": ("(sudija) Napusti suđenje bez upisa", "(referee) Leave the trial, nothing recorded"),
    "cmd.bula": ("Odlazak u bulu umesto drugog (branilac koji nije pao, do kraja naredne ruke)",
                         "Go into the bule instead of the other (the defender who did not fall)"),
    "cmd.ponisti": ("Poništi odlazak u bulu umesto vas, svoju ispravku, predlog ili ponudu Arbitra",
                            "Cancel an odlazak u bulu made for you, your ispravka, proposal or Arbitar offer"),
    "cmd.arbitar": ("Ponudite Arbitra za svoj pad (drugi branilac pristaje ili odbija)",
                            "Offer the Arbitar for your fall (the other defender agrees or refuses)"),
    "cmd.ispravka": ("Tražite da vaš pad bude prolaz (slažu se druga dva igrača)",
                             "Ask that your fall count as a pass (the other two agree)"),
    "cmd.prihvatam": ("Pristanite na Arbitra ili ispravku", "Agree to the Arbitar or an ispravka"),
    "cmd.odbijam": ("Odbijte Arbitra ili ispravku", "Refuse the Arbitar or an ispravka"),
    "arg.ruka": ("Broj ruke", "The hand's number"),
    "arg.sta": ("Šta poništavate (bez: ono što postoji)", "What to cancel (empty: whatever there is)"),
    "arg.razlog": ("Razlog", "Reason"),
    "arg.zahtev": ("Broj zahteva (bez: jedini koji čeka vaš odgovor)",
                           "The request's number (empty: the one awaiting your answer)"),
    "choice.sta.bula": ("odlazak u bulu", "odlazak u bulu"),
    "choice.sta.ispravka": ("ispravka", "ispravka"),
    "choice.sta.predlog": ("predlog ispravke", "ispravka proposal"),
    "choice.sta.arbitar": ("ponuda Arbitra", "Arbitar offer"),
    "cmd.postavi": ("Postavi člana za sudiju, većnika ili moderatora",
                            "Appoint a referee, councilor or moderator"),
    "cmd.razresi": ("Razreši člana funkcije (uz razlog)", "Dismiss a member from a function (with a reason)"),
    "cmd.ostavka": ("Podnesi ostavku na svoju funkciju", "Resign your function"),
    "cmd.uskrati": ("Uskrati članu pravo da poziva sudiju (na dane, do datuma ili dok se ne vrati)",
                            "Deny a member the right to call a referee (for days, until a date or until restored)"),
    "cmd.vrati": ("Vrati članu pravo da poziva sudiju", "Restore a member's right to call a referee"),
    "cmd.akti": ("Akti Kluba: postavljenja, razrešenja, uskraćivanja", "The club's acts: appointments, "
                         "dismissals, denials"),
    "cmd.clan": ("Karton člana: funkcije, plavac, Liga, pravo poziva", "A member's card: functions, plavac, "
                         "league, right to call"),
    "cmd.zatvori_ligu": ("(Vlasnik) Zatvori mesec Lige", "(owner) Close a league month"),
    "arg.clan": ("Nadimak člana u Klubu", "The member's club nickname"),
    "arg.funkcija": ("Funkcija", "The function"),
    "arg.dana": ("Koliko dana (bez dana i datuma: dok se ne vrati)", "For how many days (neither: until "
                         "restored)"),
    "arg.do": ("Do datuma GGGG-MM-DD", "Until the date YYYY-MM-DD"),
    "arg.mesec": ("Mesec GGGG-MM (bez: prethodni)", "The month YYYY-MM (empty: the previous one)"),
    "choice.funkcija.referee": ("sudija", "referee"),
    "choice.funkcija.councilor": ("većnik", "councilor"),
    "choice.funkcija.moderator": ("moderator", "moderator"),
    "discord.function_by_role": ("Na ovom serveru funkciju {function} daje uloga na Discordu; obratite se "
                                 "administratoru servera.",
                                 "On this server the function {function} comes with a Discord role; ask the "
                                 "server's administrator."),
    "usage.days_and_date": ("Navedite broj dana ili datum, ne oba.", "Give the days or a date, not both."),
    "arg.partija": ("Broj partije", "The game's number"),
    "arg.ukljuceno": ("Da: na dužnosti; ne: van dužnosti; bez vrednosti: promeni",
                              "True: on duty; false: off duty; empty: switch"),
    "arg.nadimak": ("Vaš nadimak u Klubu (na serveru za igru)", "Your club nickname (on the game server)"),
    "arg.vrsta": ("Vrsta presude", "The kind of verdict"),
    "discord.game_choice": ("{game} — {players} — {when}", "{game} — {players} — {when}"),
    "discord.thread_name": ("Suđenje #{trial}", "Trial #{trial}"),
    "discord.relay": ("{nick}: {text}", "{nick}: {text}"),
    "discord.failed": ("Nešto nije uspelo. Pokušajte ponovo; ako se ponovi, javite moderatoru.",
                       "Something failed. Try again; if it happens again, tell a moderator."),
    "choice.vrsta.bule": ("Promena bula", "Bula change"),
    "choice.vrsta.bula": ("Odlazak u bulu umesto drugog", "Fall transferred to the culprit"),
    "choice.vrsta.kazna": ("Kazna", "Penalty"),
    "choice.vrsta.svodjenje": ("Ručno svođenje", "Manual settlement"),
    "choice.vrsta.niko": ("(niko)", "(niko) — nobody"),
    "choice.vrsta.bez": ("Bez presude", "Bez presude"),
    "discord.field.hand": ("Ruka (prazno: partija u celini)", "Hand (empty: the game as a whole)"),
    "discord.field.hand_required": ("Ruka (broj)", "Hand (number)"),
    "discord.field.amounts": ("Bule: NADIMAK ±N, NADIMAK ±N", "Bule: NICK ±N, NICK ±N"),
    "discord.field.late": ("Kašnjenje opravdano? (da/ne)", "Delay justified? (da/ne)"),
    "discord.field.culprit": ("Krivac (nadimak)", "Culprit (nickname)"),
    "discord.placeholder.culprit_offence": ("petar — ili iz kataloga: petar po kasnjenje",
                                            "petar — or from the catalogue: petar po kasnjenje"),
    "discord.field.plavac": ("Plavac, dana (0–7)", "Plavac, days (0–7)"),
    "discord.field.league": ("Kazneni poeni u Ligi (0–10)", "League penalty points (0–10)"),
    "discord.field.abandoned": ("Napuštena partija? (da/ne)", "Abandoned game? (da/ne)"),
    "discord.field.confirm": ("Nije protiv nevinog igrača? (potvrđujem)", "Not against an innocent? (potvrđujem)"),
    "discord.field.reason": ("Obrazloženje", "Reason"),
    "link.needed": ("Nalog nije povezan sa nadimkom u Klubu i može samo da traži povezivanje: /nadimak NADIMAK. "
                    "Dokaz: kod iz igre (/nadimak NADIMAK KOD) ili odobrenje moderatora.",
                    "Your account is not linked to a club nickname and can only ask: /nadimak NICKNAME. Proof: the "
                    "code from the game (/nadimak NICKNAME CODE) or a moderator's approval."),
    # Proven identity (bot.desk.links)
    "link.pending_only": ("Vaš zahtev za nadimak {nick} još nije dokazan, pa nalog ne može ništa drugo. {how}",
                          "Your request for the nickname {nick} is not proven yet, so the account can do nothing "
                          "else. {how}"),
    "link.how_code": ("Upišite /nadimak NADIMAK KOD sa kodom koji vam je igrački server pokazao u igri, ili sačekajte "
                      "odobrenje moderatora ili Vlasnika.",
                      "Type /nadimak NICKNAME CODE with the code the game server showed you in the game, or wait "
                      "for a moderator's or the owner's approval."),
    "link.how_approval": ("Sačekajte da moderator ili Vlasnik odobri zahtev (/povezi).",
                          "Wait for a moderator or the owner to approve the request (/povezi)."),
    "member.left": ("Niste više član Kluba (napustili ste ga na svim platformama): ne možete pozivati sudiju, "
                    "pritiskati dugmad ni davati saglasnost.",
                    "You are no longer a member of the club (you left it on every platform): you cannot call a "
                    "referee, press buttons or consent."),
    "nick.bad": ("Taj nadimak ne može biti nadimak u Klubu: {problem}.",
                 "That cannot be a club nickname: {problem}."),
    "link.already": ("Nalog je već povezan sa nadimkom {nick}.", "Your account is already linked to {nick}."),
    "link.relink": ("Nalog je povezan sa nadimkom {nick}. Drugi nadimak: neka moderator prvo odveže nalog "
                    "(/odvezi), pa zatražite novi uz isti dokaz.",
                    "Your account is linked to {nick}. For another nickname a moderator unlinks it first "
                    "(/odvezi); then ask again, with the same proof."),
    "link.owner_is_configured": ("Nalozi Vlasnika ({nick}) zadaju se u podešavanjima Kluba (owner_accounts), ne "
                                 "povezivanjem. Ništa nije sačuvano.",
                                 "The owner's ({nick}) accounts are set in the club's configuration "
                                 "(owner_accounts), never by linking. Nothing was stored."),
    "link.taken": ("Nadimak {nick} je već povezan sa drugim nalogom na ovoj platformi; obratite se moderatoru. "
                   "Ništa nije sačuvano.",
                   "The nickname {nick} is already linked to another account on this platform; ask a moderator. "
                   "Nothing was stored."),
    "link.locked": ("Previše pogrešnih kodova: novi pokušaj posle {until}.",
                    "Too many wrong codes: try again after {until}."),
    "link.asked": ("Zahtev za nadimak {nick} čeka odobrenje moderatora ili Vlasnika. Do tada nalog ne može ništa "
                   "osim da traži povezivanje.",
                   "Your request for the nickname {nick} waits for a moderator's or the owner's approval. Until "
                   "then the account can do nothing but ask."),
    "link.code_sent": ("Igrački server je poslao jednokratni kod nadimku {nick} (vidi se u igri). Upišite /nadimak "
                       "{nick} KOD u roku od {minutes} minuta. Može i odobrenje moderatora.",
                       "The game server sent a one-time code to {nick} (shown in the game). Type /nadimak {nick} "
                       "CODE within {minutes} minutes. A moderator's approval also proves it."),
    "link.code_already_sent": ("Kod za {nick} je već poslat i važi do {until}: upišite /nadimak {nick} KOD.",
                               "A code for {nick} was already sent and is valid until {until}: type /nadimak "
                               "{nick} CODE."),
    "link.no_codes": ("Ovaj Klub nema vezu sa igračkim serverom, pa nema kodova. {how}",
                      "This club has no game-server link, so there are no codes. {how}"),
    "link.wrong_code": ("Kod nije ispravan za ovaj nalog i nadimak. Preostalo pokušaja: {left}.",
                        "That code is not right for this account and nickname. Tries left: {left}."),
    "link.code_expired": ("Kod je istekao. Zatražite novi: /nadimak {nick}",
                          "The code has expired. Ask for a new one: /nadimak {nick}"),
    "link.request_gone": ("Taj zahtev za povezivanje više ne postoji.", "That link request no longer exists."),
    "link.told_approved": ("Moderator je odobrio povezivanje: nalog je povezan sa nadimkom {nick}.",
                           "A moderator approved the link: your account is linked to {nick}."),
    "link.approved": ("Odobreno: {nick} je povezan na platformi {platform}.",
                      "Approved: {nick} is linked on {platform}."),
    "link.denied": ("Odbijeno: zahtev za {nick} ({platform}).", "Denied: the request for {nick} ({platform})."),
    "button.link_approve": ("Odobri", "Approve"),
    "button.link_deny": ("Odbij", "Deny"),
    "link.request_line": ("#{id} {nick} — {platform} nalog {account} ({display}), {at}",
                          "#{id} {nick} — {platform} account {account} ({display}), {at}"),
    "link.told_request": ("Novi zahtev za povezivanje: {line}", "A new link request: {line}"),
    "link.requests_title": ("Zahtevi za povezivanje (/povezi NADIMAK odobri|odbij):",
                            "Link requests (/povezi NICKNAME odobri|odbij):"),
    "link.no_requests": ("Nema zahteva za povezivanje.", "There are no link requests."),
    "link.not_allowed": ("Povezivanje odobravaju, odbijaju i ukidaju samo moderatori i Vlasnik.",
                         "Only moderators and the owner approve, deny and remove links."),
    "link.no_request_for": ("Nema zahteva za nadimak {nick}.", "There is no request for {nick}."),
    "link.several": ("Za {nick} ima više zahteva; izaberite broj: /povezi #BROJ odobri|odbij\n{lines}",
                     "There are several requests for {nick}; choose one: /povezi #NUMBER odobri|odbij\n{lines}"),
    "link.bad_platform": ("Platforma {platform} ne postoji; može: {platforms}.",
                          "There is no platform {platform}; one of: {platforms}."),
    "link.not_linked": ("{nick} nije povezan (na toj platformi).", "{nick} is not linked (on that platform)."),
    "link.unlinked": ("{nick} je odvezan: {platforms}.", "{nick} is unlinked: {platforms}."),
    "link.by_configuration": ("podešavanja Kluba", "the club's configuration"),
    "proof.code": ("kodom iz igre", "by the code from the game"),
    "proof.approval": ("odobrenjem", "by approval"),
    "proof.configuration": ("podešavanjima", "by the configuration"),
    "proof.admin": ("na serveru", "at the server"),
    "act.account_linked": ("{at} — {who} je povezao {whom} ({platform}), {how}",
                           "{at} — {who} linked {whom} ({platform}), {how}"),
    "act.account_unlinked": ("{at} — {who} je odvezao {whom} ({platform}). Razlog: {reason}",
                             "{at} — {who} unlinked {whom} ({platform}). Reason: {reason}"),
    "act.link_denied": ("{at} — {who} je odbio zahtev za {whom} ({platform}). Razlog: {reason}",
                        "{at} — {who} denied the request for {whom} ({platform}). Reason: {reason}"),
    "cmd.povezi": ("(Moderator, Vlasnik) Zahtevi za povezivanje: spisak, odobri ili odbij",
                           "(moderator, owner) Link requests: list, approve or deny"),
    "cmd.odvezi": ("(Moderator, Vlasnik) Ukini povezivanje naloga sa nadimkom",
                           "(moderator, owner) Remove an account's link to a nickname"),
    "arg.kod": ("Jednokratni kod koji vam je igrački server pokazao u igri",
                        "The one-time code the game server showed you in the game"),
    "arg.nadimak_request": ("Nadimak iz zahteva (ili #broj zahteva)",
                                    "The requested nickname (or #request number)"),
    "arg.odluka": ("Odobri ili odbij", "Approve or deny"),
    "arg.platforma": ("Samo na ovoj platformi (inače na svim)", "Only on this platform (else on all)"),
    "usage.povezi": ("/povezi [NADIMAK|#BROJ odobri|odbij] [-- razlog] — (moderator, Vlasnik) zahtevi za povezivanje",
                     "/povezi [NICKNAME|#NUMBER odobri|odbij] [-- reason] — (moderator, owner) link requests"),
    "usage.odvezi": ("/odvezi NADIMAK [discord|telegram] [-- razlog] — (moderator, Vlasnik) ukini povezivanje",
                     "/odvezi NICKNAME [discord|telegram] [-- reason] — (moderator, owner) remove a link"),
    "link.ok": ("Nalog je povezan sa nadimkom {nick}.", "Your account is linked to the nickname {nick}."),
    # Out-of-game verdicts taking effect (bot.desk.penalties) and club governance (bot.desk.governance)
    "penalty.abandoned_not_interrupted": ("Partija {game} nije prekinuta: napuštena partija se dodeljuje samo u "
                                          "prekinutoj partiji.",
                                          "Game {game} was not interrupted: an abandoned game is counted only for an "
                                          "interrupted game."),
    "settlement.refused": ("Ručno svođenje nije moguće: odigrano je {played} od {total} bula, a potrebno je najmanje "
                           "{needed} ({share}); od prekida je prošlo {elapsed}, a potrebno je najmanje {delay}.",
                           "A manual settlement is not possible: {played} of {total} bule are played and at least "
                           "{needed} ({share}) must be; {elapsed} has passed since the interruption and at least "
                           "{delay} must."),
    "penalty.part_plavac": ("{name} {days} d. (do {until})", "{name} {days} days (until {until})"),
    "penalty.part_league": ("{points} kaznenih poena u Ligi ({league})", "{points} penalty points in the league "
                            "({league})"),
    "penalty.part_abandoned": ("partija se vodi kao da ste je vi napustili", "the game counts as abandoned by you"),
    "penalty.imposed": ("Sudija vas je kaznio za partiju {game}: {what}. Obrazloženje: {reason}",
                        "A referee penalised you for game {game}: {what}. Reason: {reason}"),
    "lift.notice": ("Ranija kazna za partiju {game} je ukinuta (za jednu partiju postoji najviše jedna kazna). {what}",
                    "Your earlier penalty for game {game} is lifted (a game has at most one penalty). {what}"),
    "lift.nothing": ("Napuštena partija se vodi prema novoj presudi.", "The abandoned game follows the new verdict."),
    "lift.plavac_over": ("Taj {name} je već istekao.", "That {name} had already run out."),
    "lift.plavac_ended": ("{name} je skraćen za {days} d. i završen je odmah.",
                          "The {name} is shortened by {days} days and ends now."),
    "lift.plavac_shortened": ("{name} je skraćen za {days} d. i traje do {until}.",
                              "The {name} is shortened by {days} days and lasts until {until}."),
    "lift.points_returned": ("{points} kaznenih poena je vraćeno ({league} {month}).",
                             "{points} penalty points are given back ({league} {month})."),
    "lift.points_month_closed": ("{points} kaznenih poena ostaje: {league} za {month} je zatvorena.",
                                 "{points} penalty points stay: the {league} of {month} is closed."),
    "settlement.points_cancelled": ("Partija {game} je ručno svedena: vaših {points} kaznenih poena u Ligi te "
                                    "partije je poništeno ({league} {month}).",
                                    "Game {game} was settled by hand: your {points} league penalty points for it are "
                                    "cancelled ({league} {month})."),
    "settlement.points_month_closed": ("Partija {game} je ručno svedena, ali {league} za {month} je zatvorena: "
                                       "{points} kaznenih poena ostaje.",
                                       "Game {game} was settled by hand, but the {league} of {month} is closed: the "
                                       "{points} penalty points stay."),
    "plavac.ended": ("Vaš {name} je istekao: ponovo možete igrati partije sa rejtingom.",
                     "Your {name} has run out: you may play rated games again."),
    "card.title": ("Član {nick}", "Member {nick}"),
    "card.roles": ("Funkcije: {roles}", "Functions: {roles}"),
    "card.no_roles": ("nema", "none"),
    "card.plavac": ("{name} do {until} (samo partije bez rejtinga)", "{name} until {until} (unrated games only)"),
    "card.no_plavac": ("{name}: nema", "{name}: none"),
    "card.league": ("{league} {month} ({state}): {points} poena iz {games} partija, {penalty} kaznenih poena",
                    "{league} {month} ({state}): {points} points from {games} games, {penalty} penalty points"),
    "card.month_open": ("otvorena", "open"),
    "card.month_closed": ("zatvorena", "closed"),
    "card.napustio": ("Napustio: {total} partija (ovog meseca {month})",
                      "Abandoned (napustio): {total} games ({month} this month)"),
    "card.call_allowed": ("Pravo da poziva sudiju: da", "Right to call a referee: yes"),
    "card.call_denied_until": ("Pravo da poziva sudiju: uskraćeno do {until}",
                               "Right to call a referee: denied until {until}"),
    "card.call_denied": ("Pravo da poziva sudiju: uskraćeno dok se ne vrati",
                         "Right to call a referee: denied until restored"),
    "role.referee": ("sudija", "referee"),
    "role.councilor": ("većnik", "councilor"),
    "role.moderator": ("moderator", "moderator"),
    "role.owner": ("Vlasnik", "owner"),
    "gov.unknown_member": ("Član {nick} ne postoji.", "There is no member {nick}."),
    "gov.unknown_role": ("Nepoznata funkcija {role}.", "Unknown function {role}."),
    "gov.not_allowed_role": ("Nemate pravo da postavljate ili razrešavate funkciju: {role}.",
                             "You may not appoint or dismiss this function: {role}."),
    "gov.already": ("{nick} već ima funkciju: {role}.", "{nick} already holds the function: {role}."),
    "gov.not_holding": ("{nick} nema funkciju: {role}.", "{nick} does not hold the function: {role}."),
    "gov.appointed": ("{nick} je postavljen: {role}.", "{nick} is appointed: {role}."),
    "gov.told_appointed": ("Postavljeni ste za funkciju: {role}. Razlog: {reason}",
                           "You are appointed to the function: {role}. Reason: {reason}"),
    "gov.dismissed": ("{nick} je razrešen funkcije: {role}.", "{nick} is dismissed from the function: {role}."),
    "gov.told_dismissed": ("Razrešeni ste funkcije: {role}. Razlog: {reason}",
                           "You are dismissed from the function: {role}. Reason: {reason}"),
    "gov.reason_required": ("Navedite razlog posle --.", "Give the reason after --."),
    "gov.not_yours": ("Nemate funkciju: {role}.", "You do not hold the function: {role}."),
    "gov.resigned": ("Podneli ste ostavku na funkciju: {role}.", "You resigned the function: {role}."),
    "gov.not_allowed_call": ("Pravo poziva sudije uskraćuju i vraćaju samo većnici i Vlasnik.",
                             "Only the councilors and the owner deny and restore the right to call a referee."),
    "gov.until_past": ("Datum {until} je već prošao.", "The date {until} has already passed."),
    "gov.denied_forever": ("{nick} više ne može da poziva sudiju, dok mu se pravo ne vrati.",
                           "{nick} may no longer call a referee, until the right is restored."),
    "gov.denied_until": ("{nick} ne može da poziva sudiju do {until}.", "{nick} may not call a referee until {until}."),
    "gov.told_denied_forever": ("Uskraćeno vam je pravo da pozivate sudiju, dok vam se ne vrati. Razlog: {reason}",
                                "Your right to call a referee is denied until restored. Reason: {reason}"),
    "gov.told_denied_until": ("Uskraćeno vam je pravo da pozivate sudiju do {until}. Razlog: {reason}",
                              "Your right to call a referee is denied until {until}. Reason: {reason}"),
    "gov.not_denied": ("{nick} ima pravo da poziva sudiju.", "{nick} has the right to call a referee."),
    "gov.restored": ("{nick} ponovo može da poziva sudiju.", "{nick} may call a referee again."),
    "gov.told_restored": ("Vraćeno vam je pravo da pozivate sudiju.", "Your right to call a referee is restored."),
    "gov.acts_not_allowed": ("Spisak akata vide samo funkcioneri Kluba.", "Only the club's officials see the acts."),
    "gov.acts_none": ("Nema zabeleženih akata.", "No acts are recorded."),
    "gov.acts_title": ("Akti (najnoviji prvi):", "Acts (newest first):"),
    "gov.admin": ("administrator", "the admin"),
    "act.role_granted": ("{at} — {who} je postavio {whom}: {role}. Razlog: {reason}",
                         "{at} — {who} appointed {whom}: {role}. Reason: {reason}"),
    "act.role_removed": ("{at} — {who} je razrešio {whom}: {role}. Razlog: {reason}",
                         "{at} — {who} dismissed {whom}: {role}. Reason: {reason}"),
    "act.resigned": ("{at} — {whom} je podneo ostavku: {role}. Razlog: {reason}",
                     "{at} — {whom} resigned: {role}. Reason: {reason}"),
    "act.call_denied": ("{at} — {who} je uskratio {whom} pravo poziva sudije do {until}. Razlog: {reason}",
                        "{at} — {who} denied {whom} the right to call a referee until {until}. Reason: {reason}"),
    "act.call_restored": ("{at} — {who} je vratio {whom} pravo poziva sudije. Razlog: {reason}",
                          "{at} — {who} restored {whom}'s right to call a referee. Reason: {reason}"),
    "act.league_closed": ("{at} — {who} je zatvorio Ligu za {whom}. Razlog: {reason}",
                          "{at} — {who} closed the league of {whom}. Reason: {reason}"),
    "league.not_allowed": ("Mesec Lige zatvara samo Vlasnik.", "Only the owner closes a league month."),
    "league.bad_month": ("Mesec se piše GGGG-MM (na primer 2026-11), a ne {month}.",
                         "A month is written YYYY-MM (e.g. 2026-11), not {month}."),
    "league.future": ("Mesec {month} još nije počeo.", "The month {month} has not begun."),
    "league.already_closed": ("Liga za {month} je već zatvorena.", "The league of {month} is already closed."),
    "league.closed": ("{league} za {month} je zatvorena; poredak je zamrznut.",
                      "The {league} of {month} is closed; its standings are frozen."),
    "usage.postavi": ("/postavi NADIMAK sudija|vecnik|moderator [-- razlog]",
                      "/postavi NICK sudija|vecnik|moderator [-- reason]"),
    "usage.razresi": ("/razresi NADIMAK sudija|vecnik|moderator -- razlog",
                      "/razresi NICK sudija|vecnik|moderator -- reason"),
    "usage.ostavka": ("/ostavka sudija|vecnik|moderator [-- razlog]", "/ostavka sudija|vecnik|moderator [-- reason]"),
    "usage.uskrati": ("/uskrati NADIMAK [DANA | do GGGG-MM-DD] -- razlog",
                      "/uskrati NICK [DAYS | do YYYY-MM-DD] -- reason"),
    "usage.vrati": ("/vrati NADIMAK [-- razlog]", "/vrati NICK [-- reason]"),
    "usage.akti": ("/akti [NADIMAK]", "/akti [NICK]"),
    "usage.clan": ("/clan [NADIMAK]", "/clan [NICK]"),
    "usage.zatvori_ligu": ("/zatvori_ligu [GGGG-MM] [-- razlog] (ili /liga zatvori …)",
                           "/zatvori_ligu [YYYY-MM] [-- reason] (or /liga zatvori …)"),
    "usage.arg.funkcija": ("Funkcija je sudija, vecnik ili moderator", "The function is sudija, vecnik or moderator"),
    "usage.nick_role": ("Navedite nadimak i funkciju", "Give the nickname and the function"),
    "usage.one_nick": ("Navedite jedan nadimak", "Give one nickname"),
    "usage.date": ("Datum se piše GGGG-MM-DD", "A date is written YYYY-MM-DD"),
    # Telegram adapter (bot/telegram/): its own framing around what the desk says
    "cmd.pomoc": ("Spisak komandi", "The list of commands"),
    "usage.nadimak": ("/nadimak NADIMAK [KOD] — zatraži povezivanje naloga sa nadimkom u Klubu (kod iz igre ga "
                      "dokazuje)",
                      "/nadimak NICKNAME [CODE] — ask to link your account to your club nickname (the code from "
                      "the game proves it)"),
    "telegram.welcome": ("Zdravo! Ovde vam Sudija piše privatno: pozive, suđenja i odgovore. Komande: /pomoc",
                         "Hello! Sudija writes to you here in private: calls, trials and answers. Commands: /pomoc"),
    "telegram.not_in_trial": ("Niste u suđenju, pa ovu poruku nemam kome da prosledim. Komande: /pomoc",
                              "You are not in a trial, so there is no one to pass this message to. Commands: /pomoc"),
    "telegram.private_only": ("Ova komanda radi samo u privatnom razgovoru sa botom: {link}",
                              "This command works only in a private chat with the bot: {link}"),
    "telegram.start_hint": ("(Da bi vam odgovori stizali privatno, pokrenite razgovor sa botom: {link})",
                            "(To get answers in private, start a chat with the bot: {link})"),
    "telegram.sent_private": ("Odgovor vam je poslat u privatnoj poruci.", "The answer was sent to you in private."),
    "telegram.error": ("Došlo je do greške; pokušajte ponovo.", "Something went wrong; please try again."),
    "telegram.invite": ("{nick}, čekaju vas poruke o suđenju u privatnom razgovoru sa botom. Otvorite ga: {link}",
                        "{nick}, messages about a trial are waiting for you in a private chat with the bot. Open it: "
                        "{link}"),
    "telegram.trial_party": ("Pišite ovde: svaku vašu poruku prosleđujem ostalima u suđenju, a njihove vama.",
                             "Write here: I pass each of your messages to the others in the trial, and theirs to you."),
    "telegram.trial_referee": ("Vi sudite. Dugmad ispod ili komande: /ruke, /sudjenja, /presuda … (nacrt, npr. "
                               "/presuda niko -- obrazloženje; novi nacrt zamenjuje stari), /zavrsi (Završi "
                               "suđenje), /napusti, van partije /promeni BROJ, tokom partije /vecnik. Sve ostalo što "
                               "napišete prosleđujem strankama. Pomoć: /pomoc",
                               "You are judging. Buttons below or commands: /ruke, /sudjenja, /presuda … (a draft, "
                               "e.g. /presuda niko -- reason; a new draft replaces the old), /zavrsi (Završi "
                               "suđenje), /napusti, out of game /promeni NUMBER, in game /vecnik. Everything else you "
                               "write goes to the parties. Help: /pomoc"),
    "telegram.replay": ("Suđenje za partiju {game} je u toku (pozvao {caller}). Dosadašnje poruke:",
                        "The trial for game {game} is on (called by {caller}). The messages so far:"),
    "telegram.relay": ("{nick}: {text}", "{nick}: {text}"),
    "telegram.pressed": ("Primljeno — odgovor stiže u privatnoj poruci.", "Received — the answer comes in private."),
    "telegram.answer_waiting": ("{nick}, odgovor vas čeka u privatnom razgovoru sa botom: {link}",
                                "{nick}, your answer is waiting in a private chat with the bot: {link}"),
    # The console club (bot/console): its own framing around what the desk says.
    "console.channel": ("#sudije", "#referees"),
    "console.edited": ("(izmena)", "(edited)"),
    "console.picture": ("slika: {path}", "picture: {path}"),
    "console.space_members": ("u prostoru: {members}", "in the space: {members}"),
    "console.banner": ("Sudija — konzolni klub (baza {db}), sat: {now}. Uputstvo: help. Kraj: Ctrl-D.",
                       "Sudija — the console club (database {db}), clock: {now}. Instructions: help. Quit: Ctrl-D."),
    "console.demo_created": ("Napravljen je demo klub: {members} članova, {games} partija, sto {table} u toku.",
                             "The demo club was created: {members} members, {games} games, table {table} in "
                             "progress."),
    "console.help": ("Jedan red = jedna radnja:\n"
                     "  @NADIMAK TEKST        član kuca TEKST (komandu kao /sudija 1847258 ili poruku u suđenju)\n"
                     "  @NADIMAK !press NATPIS  član pritiska dugme NATPIS na najnovijoj poruci koja mu ga "
                     "prikazuje\n"
                     "  @NADIMAK !online | !offline   prisustvo u četu\n"
                     "  @NADIMAK !sit PARTIJA | !stand   sedne za sto / ustane od stola\n"
                     "  !clock +5m            pomeri sat botu (s, m, h, d; npr. +1h30m)\n"
                     "  !who                  ko je gde: online, za stolom, sudi, na dužnosti\n"
                     "  help                  ovo uputstvo; prazni redovi i redovi sa # se preskaču\n"
                     "Izlaz: [#sudije] kanal sudija i većnika, [dm NADIMAK] privatno, [trial N] prostor suđenja, "
                     "[table N] sto; dugmad su u uglastim zagradama.",
                     "One line = one action:\n"
                     "  @NICK TEXT            member NICK types TEXT (a command such as /sudija 1847258, or a "
                     "message in his trial)\n"
                     "  @NICK !press LABEL    NICK presses the button LABEL on the newest message that shows it "
                     "to him\n"
                     "  @NICK !online | !offline   presence in the chat\n"
                     "  @NICK !sit GAME | !stand   sits down at a table / stands up\n"
                     "  !clock +5m            advance the bot's clock (s, m, h, d; e.g. +1h30m)\n"
                     "  !who                  who is where: online, seated, judging, on duty\n"
                     "  help                  these instructions; blank lines and # comments are skipped\n"
                     "Output: [#referees] the referees' and councilors' channel, [dm NICK] private, [trial N] a "
                     "trial space, [table N] a table; buttons are in square brackets."),
    "console.commands": ("Komande članova:", "Members' commands:"),
    "console.line_error": ("line {line}: {problem}", "line {line}: {problem}"),
    "console.bad_line": ("Red počinje sa @NADIMAK, !clock, !who ili help (ne razumem: {line})",
                         "A line starts with @NICK, !clock, !who or help (cannot read: {line})"),
    "console.unknown_nick": ("Nepoznat član: {nick} (spisak daje !who).", "Unknown member: {nick} (see !who)."),
    "console.no_text": ("Posle @{nick} napišite tekst ili radnju (!press, !online, !offline, !sit, !stand).",
                        "After @{nick} write text or an action (!press, !online, !offline, !sit, !stand)."),
    "console.unknown_action": ("Nepoznata radnja !{name}; postoje !press, !online, !offline, !sit, !stand, "
                               "!clock i !who.",
                               "Unknown action !{name}; there are !press, !online, !offline, !sit, !stand, !clock "
                               "and !who."),
    "console.no_argument": ("!{name} se piše bez dodataka.", "!{name} takes nothing after it."),
    "console.press_label": ("Posle !press navedite natpis dugmeta, npr. !press Sudi.",
                            "After !press give the button's label, e.g. !press Sudi."),
    "console.no_button": ("{nick} ne vidi dugme [{label}].", "{nick} sees no button [{label}]."),
    "console.sit_game": ("Posle !sit navedite broj partije, npr. !sit 1847320.",
                         "After !sit give a game number, e.g. !sit 1847320."),
    "console.bad_clock": ("Pomeranje sata se piše +5m (s, m, h, d), npr. !clock +5m ili !clock +1h30m.",
                          "Write a clock step as +5m (s, m, h, d), e.g. !clock +5m or !clock +1h30m."),
    "console.clock": ("sat: {now}", "clock: {now}"),
    "console.online": ("{nick} je online.", "{nick} is online."),
    "console.offline": ("{nick} je offline.", "{nick} is offline."),
    "console.sits": ("{nick} sedi za stolom {game}.", "{nick} sits at table {game}."),
    "console.stands": ("{nick} je ustao od stola.", "{nick} has stood up."),
    "console.unheard": ("Ovo niko nije video: {nick} nije u suđenju (komande počinju sa /).",
                        "Nobody saw this: {nick} is in no trial (commands start with /)."),
    "console.who_title": ("Članovi ({now}):", "Members ({now}):"),
    "console.who_online": ("online", "online"),
    "console.who_offline": ("offline", "offline"),
    "console.who_on_duty": ("na dužnosti", "on duty"),
    "console.who_seated": ("za stolom {game}", "at table {game}"),
    "console.who_judging": ("sudi u suđenju {trial} (partija {game})", "judging trial {trial} (game {game})"),
    "console.who_in_trial": ("u suđenju {trial} (partija {game})", "in trial {trial} (game {game})"),
    "console.who_left": ("napustio Klub", "left the club"),
    "console.who_no_console": ("bez naloga u konzoli", "no console account"),
    "console.role_referee": ("sudija", "referee"),
    "console.role_councilor": ("većnik", "councilor"),
    "console.role_moderator": ("moderator", "moderator"),
    "console.role_owner": ("Vlasnik", "owner"),
    "console.server": ("server igre: {what}", "game server: {what}"),
    "console.server_pause": ("sto {game} je zaustavljen", "table {game} paused"),
    "console.server_resume": ("sto {game} nastavlja igru", "table {game} resumed"),
    "console.server_block": ("ponude igrača {nick} su blokirane", "{nick}'s game offers are blocked"),
    "console.server_unblock": ("ponude igrača {nick} su ponovo dozvoljene", "{nick}'s game offers are allowed "
                               "again"),
    "console.server_close": ("partija {game} je zatvorena", "game {game} closed"),
    "console.server_paper": ("papir partije {game} je promenjen i poslat serveru",
                             "the paper of game {game} changed and was sent to the server"),
    "console.server_plavac": ("plavac za {nick} do {until}", "plavac for {nick} until {until}"),
    "console.server_plavac_off": ("plavac za {nick} je skinut", "{nick}'s plavac is lifted"),
    "presude.no_db": ("Baza {db} ne postoji.", "The database {db} does not exist."),
    # The command registry (bot/registry/): names in every language, argument problems, help
    "name.sudija": ("sudija", "referee"), "name.povuci": ("povuci", "withdraw"),
    "name.presude": ("presude", "verdicts"), "name.papir": ("papir", "paper"), "name.dezurstvo": ("dezurstvo", "duty"),
    "name.katalog": ("katalog", "catalogue"), "name.nadimak": ("nadimak", "nickname"), "name.pomoc": ("pomoc", "help"),
    "name.ruke": ("ruke", "hands"), "name.sudjenja": ("sudjenja", "trials"), "name.vecnik": ("vecnik", "councilor"),
    "name.promeni": ("promeni", "change-game"), "name.presuda": ("presuda", "verdict"),
    "name.zavrsi": ("zavrsi", "finish"), "name.napusti": ("napusti", "leave"),
    "name.bula": ("bula", "go-into-bule"), "name.ponisti": ("ponisti", "cancel"),
    "name.arbitar": ("arbitar", "arbitar"),
    "name.ispravka": ("ispravka", "correction"), "name.prihvatam": ("prihvatam", "accept"),
    "name.odbijam": ("odbijam", "refuse"), "name.korekcije": ("korekcije", "corrections"),
    "name.postavi": ("postavi", "appoint"), "name.razresi": ("razresi", "dismiss"),
    "name.ostavka": ("ostavka", "resign"),
    "name.uskrati": ("uskrati", "deny-calls"), "name.vrati": ("vrati", "restore-calls"), "name.akti": ("akti", "acts"),
    "name.clan": ("clan", "member"), "name.zatvori_ligu": ("zatvori_ligu", "close-league"),
    "name.partija": ("partija", "game"), "name.ukljuceno": ("ukljuceno", "on"), "name.vrsta": ("vrsta", "kind"),
    "name.nacrt": ("nacrt", "draft"), "name.ruka": ("ruka", "hand"), "name.sta": ("sta", "what"),
    "name.razlog": ("razlog", "reason"), "name.zahtev": ("zahtev", "request"),
    "name.funkcija": ("funkcija", "function"),
    "name.dana": ("dana", "days"), "name.do": ("do", "until"), "name.mesec": ("mesec", "month"),
    "name.statistika": ("statistika", "figures"), "name.od": ("od", "from"),
    "name.zapisnik": ("zapisnik", "record"), "name.sudjenje": ("sudjenje", "trial"),
    "cmd.zapisnik": ("Zapisnik završenog suđenja kao HTML datoteka (za stranke i službena lica)",
                     "A finished trial's record as an HTML file (for its parties and the officials)"),
    "usage.zapisnik": ("/zapisnik BROJ_SUĐENJA", "/zapisnik TRIAL_NUMBER"),
    "arg.sudjenje": ("Broj suđenja", "The trial's number"),
    "usage.arg.sudjenje": ("Broj suđenja mora biti ceo broj", "The trial's number must be a whole number"),
    "zapisnik.unknown": ("Suđenje {trial} ne postoji.", "There is no trial {trial}."),
    "zapisnik.not_yours": ("Zapisnik suđenja {trial} dobijaju samo njegove stranke i službena lica.",
                           "Only the parties of trial {trial} and the officials get its record."),
    "zapisnik.open": ("Suđenje {trial} je još u toku: zapisnik se izdaje kad se završi.",
                      "Trial {trial} is still on: its record is given once it has ended."),
    "zapisnik.title": ("Zapisnik suđenja {trial} (partija {game})", "Record of trial {trial} (game {game})"),
    "zapisnik.ready": ("Zapisnik suđenja {trial} (partija {game}): {messages} poruka. SHA-256 poslednje karike: "
                       "{seal} (provera: sudija zapisnik --verify DATOTEKA).",
                       "Record of trial {trial} (game {game}): {messages} messages. SHA-256 of the last link: "
                       "{seal} (check: sudija zapisnik --verify FILE)."),
    "cmd.statistika": ("(Većnici) Brojke sudijskog stola: pozivi, čekanje na Sudi, suđenja po sudiji",
                       "(councilors) The referee desk's figures: calls, waiting for Sudi, trials per referee"),
    "usage.statistika": ("/statistika [od GGGG-MM-DD] [do GGGG-MM-DD]", "/statistika [od YYYY-MM-DD] [do YYYY-MM-DD]"),
    "arg.od": ("Od datuma GGGG-MM-DD", "From the date YYYY-MM-DD"),
    "statistika.only_councilors": ("Brojke sudijskog stola vide samo većnici.",
                                   "Only councilors see the referee desk's figures."),
    "statistika.bad_period": ("Period počinje ({start}) posle kraja ({end}).",
                              "The period starts ({start}) after its end ({end})."),
    "cmd.katalog": ("Katalog kazni Kluba", "The club's penalty catalogue"),
    "cmd.korekcije": ("Korekcije igrača na papiru i predlozi koji čekaju odgovor",
                      "The players' corrections on the paper and proposals awaiting an answer"),
    "arg.nacrt": ("Nacrt: bule [ruka N] NADIMAK ±N … | bula RUKA KRIVAC | kazna NADIMAK …",
                  "The draft: bule [ruka N] NICK ±N … | bula HAND CULPRIT | kazna NICK …"),
    "name.povezi": ("povezi", "link-requests"), "name.odvezi": ("odvezi", "unlink"), "name.kod": ("kod", "code"),
    "name.odluka": ("odluka", "decision"),
    "name.platforma": ("platforma", "platform"),
    "choice.odluka.odobri": ("odobri", "approve"), "choice.odluka.odbij": ("odbij", "deny"),
    "choice.platforma.discord": ("Discord", "Discord"), "choice.platforma.telegram": ("Telegram", "Telegram"),
    "choice.platforma.console": ("konzola", "console"),
    "usage.arg.odluka": ("Odluka je odobri ili odbij", "The decision is odobri or odbij"),
    "usage.arg.platforma": ("Platforma je discord, telegram ili console", "The platform is discord, telegram or "
                            "console"),
    "usage.word_too_long": ("Reč je duža od {limit} znakova.", "The word is longer than {limit} characters."),
    "name.strana": ("strana", "page"),
    "arg.sudjenje_presude": ("Broj suđenja (bez: sva suđenja partije)",
                             "The trial's number (empty: every trial of the game)"),
    "arg.strana": ("Strana razgovora tog suđenja", "The page of that trial's conversation"),
    "usage.arg.strana": ("Broj strane mora biti ceo broj", "The page's number must be a whole number"),
    "name.korekcija": ("korekcija", "undo-move"), "name.odgovor": ("odgovor", "answer"),
    "name.broj": ("broj", "number"),
    "cmd.korekcija": ("Korekcija: vrati svoj pogrešan poslednji potez (ili odgovori da/ne na tuđi zahtev)",
                      "Korekcija: undo your wrong last move (or answer yes/no to another's request)"),
    "arg.odgovor": ("Da ili ne: odgovor na zahtev drugog igrača (bez: tražite korekciju)",
                    "Yes or no: the answer to another player's request (empty: ask for a korekcija)"),
    "arg.broj": ("Broj partije (kad tražite) ili zahteva (kad odgovarate)",
                 "The game's number (asking) or the request's (answering)"),
    "choice.odgovor.da": ("da", "yes"), "choice.odgovor.ne": ("ne", "no"),
    "usage.arg.odgovor": ("Odgovor je da ili ne", "The answer is da or ne"),
    "usage.arg.broj": ("Broj mora biti ceo broj", "The number must be a whole number"),
    "usage.missing": ("Nedostaje: {what}", "Missing: {what}"),
    "usage.too_many": ("Višak reči: {words}", "Extra words: {words}"),
    "usage.reason_needed": ("Posle -- navedite razlog.", "Give the reason after --."),
    "usage.reason_too_long": ("Razlog je duži od {limit} znakova.", "The reason is longer than {limit} characters."),
    "usage.month": ("Mesec se piše GGGG-MM", "A month is written YYYY-MM"),
    "usage.arg.sta": ("Poništava se bula, ispravka, predlog ili arbitar", "What is cancelled: bula, ispravka, "
                      "predlog or arbitar"),
    "usage.arg.dana": ("Broj dana mora biti ceo broj", "The number of days must be a whole number"),
    "usage.arg.zahtev": ("Broj zahteva mora biti ceo broj", "The request's number must be a whole number"),
    "usage.arg.do": ("Posle 'do' navedite datum GGGG-MM-DD", "After 'do' give a date YYYY-MM-DD"),
    "usage.arg.od": ("Posle 'od' navedite datum GGGG-MM-DD", "After 'od' give a date YYYY-MM-DD"),
    "usage.pomoc": ("/pomoc — spisak komandi", "/pomoc — the list of commands"),
    # Issue 15: exact to the letter ------------------------------------------------------------------------
    "fall_move.ispravka": ("Pad u ruci {hand} je već ispravljen (Ispravka igrača); jedna ruka ima najviše jedno "
                           "pomeranje pada. Ispravka se može poništiti (/ponisti {hand} ispravka), pa tek onda "
                           "upisati drugo.",
                           "The fall in hand {hand} is already corrected (the players' Ispravka); a hand has at "
                           "most one fall move. The Ispravka can be cancelled (/ponisti {hand} ispravka), and only "
                           "then another written."),
    "fall_move.odlazak": ("Pad u ruci {hand} je već prebačen odlaskom u bulu koji je izabrao igrač; jedna ruka ima "
                          "najviše jedno pomeranje pada. Igrač koji je pao ga može poništiti (/ponisti {hand} "
                          "bula), pa tek onda upisati drugo.",
                          "The fall in hand {hand} already moved by a player's odlazak u bulu; a hand has at most "
                          "one fall move. The player who fell can cancel it (/ponisti {hand} bula), and only then "
                          "another written."),
    "fall_move.arbitar": ("Pad u ruci {hand} je prebacio Arbitar; presuda Arbitra se ne može poništiti, pa u toj "
                          "ruci nema drugog pomeranja pada.",
                          "The Arbitar moved the fall in hand {hand}; the Arbitar's verdict cannot be cancelled, so "
                          "that hand takes no other fall move."),
    "fall_move.sudija": ("Pad u ruci {hand} je pomerio sudija presudom; presuda se ne može poništiti, pa u toj ruci "
                         "nema drugog pomeranja pada.",
                         "A referee's verdict moved the fall in hand {hand}; a verdict cannot be cancelled, so that "
                         "hand takes no other fall move."),
    "draft.trial_ended": ("Suđenje {trial} je završeno; nacrt nije sačuvan.",
                          "Trial {trial} has ended; the draft was not saved."),
    "promeni.trial_ended": ("Suđenje {trial} je završeno; partija nije promenjena.",
                            "Trial {trial} has ended; the game was not changed."),
    "promeni.moved_meanwhile": ("Suđenje se u međuvremenu već odnosi na partiju {game}; nacrt presude je odbačen.",
                                "Meanwhile the trial has moved to game {game}; the draft was dropped."),
    "penalty.abandoned_settled": ("Partija {game} je ručno svedena i vodi se kao završena: napuštena partija se "
                                  "ne dodeljuje (napustio se ne menja).",
                                  "Game {game} was settled and counts as finished: nobody can be given its "
                                  "abandonment (napustio does not change)."),
    "councilor.called_none": ("Pozvan je većnik, ali nijedan većnik trenutno nije u lobiju; poziv ipak važi {minutes} "
                              "minuta (javiće se većnik koji dođe u lobi), a ako se niko ne javi, sudija odlučuje "
                              "sam.",
                              "A councilor was called, but no councilor is in the lobby now; the call still lives "
                              "{minutes} minutes (a councilor who comes to the lobby gets it), and if nobody answers "
                              "the referee decides alone."),
    "councilor.ok_none": ("Nijedan većnik trenutno nije u lobiju; poziv važi {minutes} minuta.",
                          "No councilor is in the lobby now; the call lives {minutes} minutes."),
    "presude.transcript": ("   razgovor:", "   conversation:"),
    "presude.no_messages": ("   (razgovor je prazan)", "   (no messages)"),
    "presude.message": ("     {at} {author}: {text}", "     {at} {author}: {text}"),
    "presude.more": ("     … još {more} poruka: /presude {game} {trial} {page}",
                     "     … {more} more messages: /presude {game} {trial} {page}"),
    "presude.page": ("Suđenje #{trial} u partiji {game}: poruke {first}–{last} od {total} (strana {page} od "
                     "{pages})", "Trial #{trial} of game {game}: messages {first}–{last} of {total} (page {page} of "
                                 "{pages})"),
    "presude.no_trial": ("Partija {game} nema suđenje {trial}.", "Game {game} has no trial {trial}."),
    "presude.no_page": ("Suđenje {trial} ima {pages} strana razgovora.", "Trial {trial} has {pages} pages of "
                                                                        "conversation."),
    "presude.label_referee": ("sudija", "referee"),
    "presude.label_councilor": ("većnik", "councilor"),
    "presude.label_unknown": ("—", "—"),
    "console.help_down": ("  !down +5m             bot nije radio toliko: sat ide dalje, a nijedan rok se ne obrađuje",
                          "  !down +5m             the bot was down that long: the clock moves, no deadline is "
                          "acted on"),
    "console.clock_down": ("Sat je sada {now}; bot nije radio, pa nijedan rok nije obrađen.",
                           "The clock is now {now}; the bot was down, so no deadline was acted on."),
    "cli.unknown_member": ("Član {nick} nije u bazi.", "Member {nick} is not in the database."),
    "hands.changes": ("  promene uz ruku {n}:", "  changes attached to hand {n}:"),
    "hands.change": ("    + {text}", "    + {text}"),
    # A busy database (another process holds the write lock past the bound) and the console club's own clock.
    "db.busy": ("Evidencija Kluba je upravo zauzeta; ništa nije promenjeno. Pokušajte ponovo za trenutak.",
                "The club's records are busy right now; nothing was changed. Please try again in a moment."),
    "console.clock_range": ("Sat se pomera najviše {days} dana odjednom i ne dalje od 9999. godine; {step} je "
                            "previše.",
                            "The clock moves at most {days} days at a time and not past the year 9999; {step} is too "
                            "far."),
    "console.clock_resumed": ("sat kluba nastavlja od {now} (sačuvan u bazi)",
                              "the club's clock resumes at {now} (kept in the database)"),
    "backup.done": ("Rezervna kopija baze {db} je u {target} ({size}).",
                    "The database {db} is backed up to {target} ({size})."),
    "backup.exists": ("{target} već postoji; navedite novu datoteku (postojeća se ne prepisuje).",
                      "{target} already exists; name a new file (an existing one is never overwritten)."),
    "backup.failed": ("Rezervna kopija nije napravljena: {why}", "No backup was made: {why}"),
    # The game-server link (bot.gameserver): korekcija of a wrong click, the outbox listing -------------------
    "usage.korekcija": ("/korekcija [PARTIJA] — vraćanje vašeg poslednjeg poteza ruke u toku (pogrešan klik), ako se "
                        "druga dva igrača slože; /korekcija da|ne [ZAHTEV] — pristanak ili odbijanje",
                        "/korekcija [GAME] — take back your last move of the hand in progress (a wrong click) if "
                        "the other two agree; /korekcija da|ne [REQUEST] — consent or refuse"),
    "button.korekcija_yes": ("Slažem se", "I agree"),
    "button.korekcija_no": ("Ne slažem se", "I refuse"),
    "korekcija.no_link": ("Korekcija poteza nije moguća: bot nije povezan sa serverom igre, pa potez ne može da se "
                          "vrati.",
                          "A move cannot be taken back: the bot has no link to the game server."),
    "korekcija.no_table": ("Ne sedite za stolom: korekcija se traži za stolom, odmah posle pogrešnog poteza.",
                           "You are not at a table: a korekcija is asked at the table, right after the wrong move."),
    "korekcija.not_player": ("U partiji {game} ne igrate.", "You do not play in game {game}."),
    "korekcija.hand_over": ("U partiji {game} nema ruke u toku: korekcija važi samo za poslednji potez ruke u toku.",
                            "Game {game} has no hand in progress: a korekcija is only for the last move of the "
                            "hand in progress."),
    "korekcija.not_last": ("Vaš potez više nije poslednji u partiji {game} (poslednji je odigrao {nick}): korekcija "
                           "se traži odmah posle pogrešnog poteza.",
                           "Your move is no longer the last in game {game} ({nick} played the last one): a "
                           "korekcija is asked right after the wrong move."),
    "korekcija.once": ("Za ovaj potez u partiji {game} korekcija je već tražena; za jedan potez traži se samo jednom.",
                       "A korekcija was already asked for this move in game {game}; it is asked only once per move."),
    "korekcija.requested": ("Tražili ste korekciju poteza ({what}) u partiji {game}; čeka se pristanak druga dva "
                            "igrača.",
                            "You asked to take back your move ({what}) in game {game}; waiting for the other two "
                            "players to agree."),
    "korekcija.asked": ("{nick} traži korekciju poteza ({what}) u partiji {game} (zahtev {request}). Slažete li se?",
                        "{nick} asks to take back the move ({what}) in game {game} (request {request}). Do you "
                        "agree?"),
    "korekcija.agreed": ("Korekcija poteza ({what}) u partiji {game} je prihvaćena; server igre vraća potez.",
                         "The korekcija of the move ({what}) in game {game} is agreed; the game server takes it back."),
    "korekcija.agreed_all": ("Oba igrača su se složila: server igre vraća potez u partiji {game}.",
                             "Both players agreed: the game server takes the move back in game {game}."),
    "korekcija.consent_recorded": ("Vaš pristanak je zabeležen; čeka se drugi igrač (partija {game}).",
                                   "Your consent is recorded; waiting for the other player (game {game})."),
    "korekcija.refused": ("{nick} se ne slaže: potez u partiji {game} ostaje.",
                          "{nick} refuses: the move in game {game} stands."),
    "korekcija.you_refused": ("Odbili ste korekciju; potez u partiji {game} ostaje.",
                              "You refused the korekcija; the move in game {game} stands."),
    "korekcija.none": ("Nema korekcije koja čeka vaš odgovor.", "No korekcija is waiting for your answer."),
    "korekcija.not_asked": ("Ova korekcija ne traži vaš odgovor.", "This korekcija does not wait for your answer."),
    "korekcija.state_refused": ("Ta korekcija u partiji {game} je već odbijena.",
                                "That korekcija in game {game} was already refused."),
    "korekcija.state_agreed": ("Ta korekcija u partiji {game} je već prihvaćena.",
                               "That korekcija in game {game} was already agreed."),
    "korekcija.state_done": ("Taj potez u partiji {game} je već vraćen.",
                             "That move in game {game} was already taken back."),
    "korekcija.state_lapsed": ("Ta korekcija u partiji {game} više ne važi: odigran je novi potez ili je ruka "
                               "završena.",
                               "That korekcija in game {game} no longer stands: a new move was played or the hand "
                               "ended."),
    "korekcija.done": ("Potez je vraćen (partija {game}, ruka {hand}); igra se nastavlja.",
                       "The move was taken back (game {game}, hand {hand}); play goes on."),
    "usage.yes_no_request": ("da ili ne, pa broj zahteva ako ih ima više", "da or ne, then the request's number"),
}

from bot.messages_councils import COUNCIL_MESSAGES  # noqa: E402  (votes and appeals, issue 19)

assert not MESSAGES.keys() & COUNCIL_MESSAGES.keys(), MESSAGES.keys() & COUNCIL_MESSAGES.keys()
MESSAGES.update(COUNCIL_MESSAGES)

LANGUAGES = ("sr", "en")


def format_param(value: object) -> str:
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M UTC")
    if isinstance(value, timedelta):
        total = int(value.total_seconds() // 60)
        days, rest = divmod(total, 24 * 60)
        hours, minutes = divmod(rest, 60)
        parts = [f"{days} d"] if days else []
        if hours:
            parts.append(f"{hours} h")
        if minutes or not parts:
            parts.append(f"{minutes} min")
        return " ".join(parts)
    return str(value)


class Catalogue:
    def __init__(self, language: str = "sr") -> None:
        if language not in LANGUAGES:
            raise ValueError(f"language must be one of {', '.join(LANGUAGES)}, not {language!r}")
        self.index = LANGUAGES.index(language)
        self.language = language

    def t(self, key: str, **params: object) -> str:
        texts = MESSAGES.get(key)
        if texts is None:
            raise KeyError(f"no message {key!r} in the catalogue")
        return texts[self.index].format(**{k: format_param(v) for k, v in params.items()})
