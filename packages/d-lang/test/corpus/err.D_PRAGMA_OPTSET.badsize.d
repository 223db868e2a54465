#pragma D option bufsize=lots
BEGIN {}
