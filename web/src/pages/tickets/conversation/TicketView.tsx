// Contract between the tickets page (list panel) and the conversation pane. The conversation work
// (issue 4 §2-§3) replaces this body; the props stay as they are.
export interface TicketViewProps {
  /** The route parameter: a ticket id or a ticket uuid. */
  ticketKey: string;
}

export default function TicketView({ ticketKey }: TicketViewProps) {
  return <div data-testid="ticket-view" data-ticket={ticketKey} />;
}
