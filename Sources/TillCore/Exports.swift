// The service contract and its value types live in TillModel (pure: depends only on TillProtocol),
// so the UI can use them without reaching the journal or the transports. Everything that imports
// TillCore still sees them.
@_exported import TillModel
// A payment's life and the answer rules (pure) live in TillLife; the transports' values it shares with them
// (`IncomingAnswer`, `TransportError`) too.
@_exported import TillLife
