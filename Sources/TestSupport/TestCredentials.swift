/// Agora's published test fixtures (the App ID and certificate of its token samples), not secrets.
public enum TestCredentials {
    public static let appID = "970CA35de60c44645bbae8a215061b33"
    public static let certificate = "5CFd2fd1755d40ecb72977518be15d3b"
}
