import java.lang.reflect.Field;

/**
 * Starts DynamoDB Local with its HTTP connector bound to one address. The jar has no bind option and
 * listens on every interface, so anyone on the network could read the tables (issue 16 §6). Run
 * from source (`java -cp DynamoDBLocal.jar:DynamoDBLocal_lib/* LoopbackDynamoDB.java <jar options>`),
 * with the address in the system property `balcao.bindHost` (default 127.0.0.1). Reflection only,
 * so it compiles without the jar's classes and fails loudly if the jar's insides change.
 */
public class LoopbackDynamoDB {
  public static void main(String[] args) throws Exception {
    String host = System.getProperty("balcao.bindHost", "127.0.0.1");
    Class<?> runner = Class.forName("com.amazonaws.services.dynamodbv2.local.main.ServerRunner");
    Object proxy = runner.getMethod("createServerFromCommandLineArgs", String[].class).invoke(null, (Object) args);
    Field field = proxy.getClass().getDeclaredField("server");
    field.setAccessible(true);
    Object server = field.get(proxy);
    Object[] connectors = (Object[]) server.getClass().getMethod("getConnectors").invoke(server);
    if (connectors.length == 0) throw new IllegalStateException("DynamoDB Local has no connector to bind");
    for (Object connector : connectors) connector.getClass().getMethod("setHost", String.class).invoke(connector, host);
    proxy.getClass().getMethod("start").invoke(proxy);
    System.out.println("DynamoDB Local listening on " + host);
  }
}
