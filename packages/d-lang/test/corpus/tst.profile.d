profile-97hz { @[cpu] = count(); } tick-1s { printa(@); exit(0); }
