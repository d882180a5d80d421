// The names `scenario.policies.<name>` and `scenario.platform.<name>` had before each
// component declared its own parameters (issue 10). Use the typed subscripts.

public extension PolicyParameters {
    @available(*, deprecated, message: "use policies[FixedPolicy.self]")
    var fixed: FixedParameters { get { self[FixedPolicy.self] } set { self[FixedPolicy.self] = newValue } }
    @available(*, deprecated, message: "use policies[AdaptivePolicy.self]")
    var adaptive: AdaptiveParameters { get { self[AdaptivePolicy.self] } set { self[AdaptivePolicy.self] = newValue } }
    @available(*, deprecated, message: "use policies[UsagePolicy.self]")
    var usage: UsageParameters { get { self[UsagePolicy.self] } set { self[UsagePolicy.self] = newValue } }
    @available(*, deprecated, message: "use policies[HistogramPolicy.self]")
    var histogram: HistogramParameters { get { self[HistogramPolicy.self] } set { self[HistogramPolicy.self] = newValue } }
    @available(*, deprecated, message: "use policies[NHPPPolicy.self]")
    var nhpp: NHPPParameters { get { self[NHPPPolicy.self] } set { self[NHPPPolicy.self] = newValue } }
    @available(*, deprecated, message: "use policies[BayesPolicy.self]")
    var bayes: BayesParameters { get { self[BayesPolicy.self] } set { self[BayesPolicy.self] = newValue } }
    @available(*, deprecated, message: "use policies[KDEPolicy.self]")
    var kde: KDEParameters { get { self[KDEPolicy.self] } set { self[KDEPolicy.self] = newValue } }
    @available(*, deprecated, message: "use policies[LogisticPolicy.self]")
    var logistic: LogisticParameters { get { self[LogisticPolicy.self] } set { self[LogisticPolicy.self] = newValue } }
    @available(*, deprecated, message: "use policies[OraclePolicy.self]")
    var oracle: OracleParameters { get { self[OraclePolicy.self] } set { self[OraclePolicy.self] = newValue } }
    @available(*, deprecated, message: "use policies[PushPolicy.self]")
    var push: PushParameters { get { self[PushPolicy.self] } set { self[PushPolicy.self] = newValue } }
}

public extension PlatformModel {
    @available(*, deprecated, message: "use platform[IOSBGTask.self]")
    var iosBgtask: IOSBGTaskParameters { get { self[IOSBGTask.self] } set { self[IOSBGTask.self] = newValue } }
    @available(*, deprecated, message: "use platform[IOSFetch.self]")
    var iosFetch: IOSFetchParameters { get { self[IOSFetch.self] } set { self[IOSFetch.self] = newValue } }
    @available(*, deprecated, message: "use platform[AndroidWorkManager.self]")
    var androidWorkmanager: AndroidWorkManagerParameters {
        get { self[AndroidWorkManager.self] } set { self[AndroidWorkManager.self] = newValue }
    }
    @available(*, deprecated, message: "use platform[Unrestricted.self]")
    var unrestricted: UnrestrictedParameters { get { self[Unrestricted.self] } set { self[Unrestricted.self] = newValue } }
}
