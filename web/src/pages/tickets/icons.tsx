// The tickets page and the notifications bell draw from the console's icons.
export { Icon as TicketIcon, type IconName as TicketIconName } from '../../ui/icons';
