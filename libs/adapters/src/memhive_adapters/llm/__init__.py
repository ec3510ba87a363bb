"""Language models behind the ChatModel and JsonChat ports (litellm: any provider)."""
