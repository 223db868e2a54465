#pragma D option destructive
BEGIN { speculate(1); stop(); }
