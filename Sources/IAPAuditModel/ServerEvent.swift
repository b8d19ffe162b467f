/// What a server-log record is: a verification request (the default) or a revoke.
public enum ServerEvent: String, Sendable {
    case verify, revoke
}
