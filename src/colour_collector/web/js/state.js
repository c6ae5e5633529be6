// The account side of the app's state (the play's own state is in play.js).

export const S = {
  me: null,          // the logged-in account, or null
  balance: null,     // pence, as the server last said
  session: null,     // GET /api/session: {started_at, net_pence, ...} of this login
  myGamesPage: 1,
  recall: null,      // { data, frames, index } while a past play is shown
};
