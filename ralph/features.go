package ralph

// The driver's features (notifications, cost, chains, agent mode, usage limits, the agents'
// own signals ...) are small types plugged into a few points of the loop's life, rather than
// methods and fields of Loop: each keeps its own state, implements only the points it needs,
// and the driver calls every feature that has a point when it gets there, in the order the
// features were listed (newFeatures). A new feature is a new type in that list; the driver's
// own steps stay as they are.

// feature is one of the driver's features; the points it is called at are the interfaces
// below that it implements.
type feature interface {
	featureName() string
}

// onDecision features hear of every decision the loop carried out, once its state is recorded
// and its lines said (cur: the state it left; a: the agent it was about).
type onDecision interface {
	feature
	decided(cur *State, a agent, dec Decision)
}

// features are the loop's features, in the order they are called at each point.
type features []feature

// decided calls the onDecision features.
func (fs features) decided(cur *State, a agent, dec Decision) {
	for _, f := range fs {
		if h, ok := f.(onDecision); ok {
			h.decided(cur, a, dec)
		}
	}
}
