// The tournaments domain's public face: what other folders may use of it.
export { settleTournaments, settleTournamentsForAllClubs } from "./settlement.js";
export { gatherTournamentScores } from "./standing-writes.js";
export { listMyTournaments, listStandings, listTournaments } from "./views.js";
export { getLeaderboard, listMyLeaderboards } from "./leaderboards.js";
