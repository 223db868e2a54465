#pragma D option nosuchoption
BEGIN {}
