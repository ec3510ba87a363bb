"""Language models behind the JsonChat port (litellm: any provider), and their spend bound."""
