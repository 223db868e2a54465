#pragma D option quiet
#pragma D option bufsize=4m
#pragma D option switchrate=10hz
#pragma D option aggsortkey
#pragma D attributes Evolving/Evolving/Common timestamp
#pragma D binding "1.0" foo
#pragma ident "x"
BEGIN { exit(0); }
