#pragma D attributes Evolving/Evolving/Common nosuchthing
BEGIN {}
