#pragma error this is an error
BEGIN {}
