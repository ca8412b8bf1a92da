// The contacts page's own dialog (spec 002 §2: "create a new contact through the contact dialog"),
// with the styles it relies on (its tag chips, the attendant and tag pickers): loaded only when the
// item dialog offers to create a contact.
import ContactDialog from '../contacts/ContactDialog';
import '../tickets/tickets.css';
import '../contacts/contacts.css';

export default ContactDialog;
