#pragma frobnicate now
BEGIN {}
