#pragma D option switchrate=fast
BEGIN {}
