// The missions domain's public face: what other folders may use of it.
export { listMyMissions } from "./my-missions.js";
export { claimMyMission } from "./claim-mission.js";
