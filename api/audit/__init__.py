"""The auditor's routes: lists, trends and the change feed."""
