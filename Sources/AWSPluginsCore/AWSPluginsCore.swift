// The AWS plugins core: credentials, request signing and auth modes.
