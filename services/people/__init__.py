"""People and programs: accounts, invitations, passwords, second factors, apps, clients."""
