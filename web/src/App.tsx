import { lazy, Suspense, type ReactNode } from 'react';
import { BrowserRouter, Navigate, Route, Routes, useLocation } from 'react-router-dom';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { isAdminProfile } from '@balcao/shared';
import { AuthProvider, useAuth } from './auth/AuthContext';
import { Loading } from './shell/Loading';
import { ColorModeProvider } from './shell/theme';
import { ToastProvider } from './ui/toast';

// Every page is its own chunk (React.lazy), and so is the signed-in frame: the sign-in screens do
// not load the top bar and menu. Off those screens its fetch starts at once rather than after the
// session check (no extra wait before the page's own chunk).
const PUBLIC_PATHS = ['/login', '/signup', '/forgetpsw'];
const loadShell = () => import('./shell/Shell');
if (!PUBLIC_PATHS.includes(window.location.pathname)) void loadShell();
const Shell = lazy(loadShell);
const Login = lazy(() => import('./pages/login/Login'));
const Signup = lazy(() => import('./pages/signup/Signup'));
const ForgetPassword = lazy(() => import('./pages/forgetpsw/ForgetPassword'));
const Home = lazy(() => import('./pages/home/Home'));
const Users = lazy(() => import('./pages/users/Users'));
const Queues = lazy(() => import('./pages/queues/Queues'));
const Connections = lazy(() => import('./pages/connections/Connections'));
const Settings = lazy(() => import('./pages/settings/Settings'));
const Tickets = lazy(() => import('./pages/tickets/Tickets'));
const Contacts = lazy(() => import('./pages/contacts/Contacts'));
const Tags = lazy(() => import('./pages/tags/Tags'));
const Kanban = lazy(() => import('./pages/kanban/Kanban'));
const QuickMessages = lazy(() => import('./pages/quick-messages/QuickMessages'));
const Schedules = lazy(() => import('./pages/schedules/Schedules'));
const Prompts = lazy(() => import('./pages/prompts/Prompts'));
const QueueIntegrations = lazy(() => import('./pages/integrations/QueueIntegrations'));
const FileLists = lazy(() => import('./pages/files/FileLists'));
const CampaignsConfig = lazy(() => import('./pages/campaigns-config/CampaignsConfig'));
const ContactLists = lazy(() => import('./pages/contact-lists/ContactLists'));
const ContactListItems = lazy(() => import('./pages/contact-lists/ContactListItems'));
const Campaigns = lazy(() => import('./pages/campaigns/Campaigns'));
const CampaignReport = lazy(() => import('./pages/campaigns/CampaignReport'));
const Announcements = lazy(() => import('./pages/announcements/Announcements'));
const HelpGallery = lazy(() => import('./pages/helps/HelpGallery'));
const TodoList = lazy(() => import('./pages/todolist/TodoList'));
const MessagesApi = lazy(() => import('./pages/messages-api/MessagesApi'));
const Chats = lazy(() => import('./pages/chats/Chats'));
const Financeiro = lazy(() => import('./pages/financeiro/Financeiro'));
const Subscription = lazy(() => import('./pages/subscription/Subscription'));

const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } } });

function Private({ children }: { children: ReactNode }) {
  const { user, loading } = useAuth();
  const location = useLocation();
  if (loading) return <Loading />;
  if (!user) return <Navigate to="/login" replace state={{ from: location.pathname + location.search }} />;
  return <>{children}</>;
}

function Public({ children }: { children: ReactNode }) {
  const { user, loading } = useAuth();
  const location = useLocation();
  if (loading) return <Loading />;
  if (user) {
    const from = (location.state as { from?: string } | null)?.from;
    return <Navigate to={from && from.startsWith('/') ? from : '/'} replace />;
  }
  return <>{children}</>;
}

function AdminOnly({ children }: { children: ReactNode }) {
  const { user } = useAuth();
  if (!isAdminProfile(user?.profile)) return <Navigate to="/" replace />;
  return <>{children}</>;
}

export default function App() {
  return (
    <ColorModeProvider>
      <ToastProvider>
        <QueryClientProvider client={queryClient}>
          <BrowserRouter>
            <AuthProvider>
              <Suspense fallback={<Loading />}>
                <Routes>
                  <Route path="/login" element={<Public><Login /></Public>} />
                  <Route path="/signup" element={<Public><Signup /></Public>} />
                  <Route path="/forgetpsw" element={<Public><ForgetPassword /></Public>} />
                  <Route element={<Private><Shell /></Private>}>
                    <Route index element={<Suspense fallback={<Loading />}><Home /></Suspense>} />
                    <Route path="tickets" element={<Suspense fallback={<Loading />}><Tickets /></Suspense>} />
                    <Route path="tickets/:ticketId" element={<Suspense fallback={<Loading />}><Tickets /></Suspense>} />
                    <Route path="contacts" element={<Suspense fallback={<Loading />}><Contacts /></Suspense>} />
                    <Route path="tags" element={<Suspense fallback={<Loading />}><Tags /></Suspense>} />
                    {/* The plan gate (useKanban) is the page's own, with the spec's toast. */}
                    <Route path="kanban" element={<Suspense fallback={<Loading />}><Kanban /></Suspense>} />
                    <Route path="quick-messages" element={<Suspense fallback={<Loading />}><QuickMessages /></Suspense>} />
                    <Route path="schedules" element={<Suspense fallback={<Loading />}><Schedules /></Suspense>} />
                    <Route path="users" element={<AdminOnly><Suspense fallback={<Loading />}><Users /></Suspense></AdminOnly>} />
                    <Route path="connections" element={<AdminOnly><Suspense fallback={<Loading />}><Connections /></Suspense></AdminOnly>} />
                    <Route path="queues" element={<AdminOnly><Suspense fallback={<Loading />}><Queues /></Suspense></AdminOnly>} />
                    <Route path="prompts" element={<AdminOnly><Suspense fallback={<Loading />}><Prompts /></Suspense></AdminOnly>} />
                    <Route path="queue-integration" element={<AdminOnly><Suspense fallback={<Loading />}><QueueIntegrations /></Suspense></AdminOnly>} />
                    {/* Campaign pages: their own gate (admins, plan and company switch) with the spec's toast. */}
                    <Route path="contact-lists" element={<Suspense fallback={<Loading />}><ContactLists /></Suspense>} />
                    <Route path="contact-lists/:contactListId/contacts" element={<Suspense fallback={<Loading />}><ContactListItems /></Suspense>} />
                    <Route path="campaigns" element={<Suspense fallback={<Loading />}><Campaigns /></Suspense>} />
                    <Route path="campaign/:campaignId/report" element={<Suspense fallback={<Loading />}><CampaignReport /></Suspense>} />
                    <Route path="campaigns-config" element={<Suspense fallback={<Loading />}><CampaignsConfig /></Suspense>} />
                    {/* The super-user gate is the page's own, with the spec's toast. */}
                    <Route path="announcements" element={<Suspense fallback={<Loading />}><Announcements /></Suspense>} />
                    <Route path="files" element={<AdminOnly><Suspense fallback={<Loading />}><FileLists /></Suspense></AdminOnly>} />
                    <Route path="helps" element={<Suspense fallback={<Loading />}><HelpGallery /></Suspense>} />
                    <Route path="todolist" element={<Suspense fallback={<Loading />}><TodoList /></Suspense>} />
                    {/* The plan gate (useInternalChat) is the page's own, with the spec's toast. */}
                    <Route path="chats" element={<Suspense fallback={<Loading />}><Chats /></Suspense>} />
                    <Route path="chats/:chatUuid" element={<Suspense fallback={<Loading />}><Chats /></Suspense>} />
                    {/* The plan gate (useExternalApi) is the page's own, with the spec's toast. */}
                    <Route path="messages-api" element={<Suspense fallback={<Loading />}><MessagesApi /></Suspense>} />
                    <Route path="settings" element={<AdminOnly><Suspense fallback={<Loading />}><Settings /></Suspense></AdminOnly>} />
                    <Route path="financeiro" element={<AdminOnly><Suspense fallback={<Loading />}><Financeiro /></Suspense></AdminOnly>} />
                    <Route path="subscription" element={<AdminOnly><Suspense fallback={<Loading />}><Subscription /></Suspense></AdminOnly>} />
                    <Route path="*" element={<Navigate to="/" replace />} />
                  </Route>
                </Routes>
              </Suspense>
            </AuthProvider>
          </BrowserRouter>
        </QueryClientProvider>
      </ToastProvider>
    </ColorModeProvider>
  );
}
