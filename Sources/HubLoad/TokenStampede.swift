/// The token server alone (`load --no-hub`): every client fetches a token at once, then every client renews at
/// once, as a fleet whose tokens were all issued together does when they near their end.
public enum TokenStampede {
    public static func run(_ plan: LoadPlan) async -> LoadFigures {
        let tally = LoadTally(names: [Measure.tokenFetch, Measure.stampede])
        for measure in [Measure.tokenFetch, Measure.stampede] {
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<plan.clients {
                    group.addTask { _ = await plan.fetchToken(for: index, tally: tally, as: measure) }
                }
            }
        }
        return tally.figures
    }
}
