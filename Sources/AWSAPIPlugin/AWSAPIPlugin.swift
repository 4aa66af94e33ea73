// The API category: GraphQL and REST clients with every AWS auth mode.
