"""The services that adapters and the console call: every workflow written once."""
