// Package sharedinbox carries out agent mode across clones (swarm agent --shared): agents in
// several clones of a project, on one host or many, work through one queue of specs, each
// spec done once, with no server but the project's shared git remote, whose ref updates are
// the compare-and-swap that decides who gets what.
//
// At each FETCH it fetches, in one go, the remote's default branch and its claim refs
// (refs/swarm/claims/<id>), merges the records of the remote's committed ralph/inbox.jsonl
// into the clone's own by id (read with `git show`, never merged into the checkout, so a
// changed inbox in it is no obstacle), and takes the spec ralph/inbox's PickShared picks by
// creating its claim with a push whose lease says it must not exist yet. The holder renews
// the claim at each iteration's start, marks it done (with where the spec's commit went:
// its own branch swarm/spec/<id>, or --land-on's branch when it applies cleanly there) or
// failed, and deletes it when it stops mid-spec; every change leases the agent's own last
// claim, so a refusal means the claim was taken over. ralph.AfterClaimPush says what each
// answer means.
//
// It stands on the loop's domain (ralph: the agent's state and decisions), ralph/inbox (the
// queue, the claim format and the pick) and ralph/git (the only package that runs git). Its
// users are the loop's driver (ralph/driver), which moves an agent from spec to spec, and
// the CLI (swarm agent, swarm inbox release and the inbox's claim listing); it sits beside
// the loop, not under the CLI, because the driver needs it.
package sharedinbox
