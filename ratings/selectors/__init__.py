"""Reads of ratings: the lists (lists), a player's standings and history (players), V:EKN scores (vekn),
two players' meetings (head_to_head) and an event's rating changes (events)."""
