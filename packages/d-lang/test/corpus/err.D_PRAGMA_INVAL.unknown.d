#pragma D frobnicate
BEGIN {}
