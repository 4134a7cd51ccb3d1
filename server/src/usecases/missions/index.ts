// The missions domain's public face: what other folders may use of it.
export { claimMyMission, listMyMissions } from "./my-missions.js";
