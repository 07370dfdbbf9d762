"""The ordinance rules of `domain/`, judged through its functions alone: no app, no database."""
