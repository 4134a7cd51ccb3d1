// The referrals domain's public face: what other folders may use of it.
export { affiliateReport, affiliateReportCsv } from "./affiliate-report.js";
export { attributeAffiliate, createAffiliate, getAffiliate, listAffiliates, updateAffiliate } from "./affiliates.js";
export { getReferralState, qualifyReferralOnEvent, registerReferral } from "./referrals.js";
