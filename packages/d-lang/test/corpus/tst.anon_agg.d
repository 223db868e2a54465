BEGIN { @ = count(); }
