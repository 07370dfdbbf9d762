"""The auditor's lists, the city's trends and the change feed."""
