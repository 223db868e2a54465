#pragma D option destructive
BEGIN { system(1); }
