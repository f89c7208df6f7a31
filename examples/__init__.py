"""Example game logs and scripted console sessions. The console's demo club is built from these logs
(`bot.demo`); a package only so that an installed bot (`pip install .`, the image) carries them beside `bot/`."""
