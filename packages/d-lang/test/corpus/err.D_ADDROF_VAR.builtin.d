BEGIN { trace(&timestamp); }
